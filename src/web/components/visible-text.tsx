/** Agent text on screen with its hidden characters marked (`⟨U+202E⟩`, see visible-text.ts). */
import { useMemo } from "preact/hooks";
import { visibleSegments } from "../visible-text.ts";

export function Visible({ text, multiline = false }: { text: string; multiline?: boolean }) {
  const segments = useMemo(() => visibleSegments(text, { multiline }), [text, multiline]);
  return (
    <>
      {segments.map((s, i) =>
        s.hidden ? (
          <span key={i} class="invisible-char" title={s.names}>
            {s.text}
          </span>
        ) : (
          s.text
        ),
      )}
    </>
  );
}
