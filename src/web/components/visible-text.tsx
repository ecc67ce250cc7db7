/** Agent text on screen with its hidden characters marked (`⟨U+202E⟩`, see visible-text.ts). */
import { useMemo } from "preact/hooks";
import { visibleSegments } from "../visible-text.ts";

export function Visible({ text, multiline = false, blanks = false }: { text: string; multiline?: boolean; blanks?: boolean }) {
  const segments = useMemo(() => visibleSegments(text, { multiline, blanks }), [text, multiline, blanks]);
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
