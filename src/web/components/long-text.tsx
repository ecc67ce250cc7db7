/**
 * Text whose long lines are cut (long-lines.ts), each cut with a "Show all" button, and the viewer
 * that button opens: a modal dialog that scrolls the whole text but lays out only the rows in
 * sight (fixed-height rows, positioned by transform), so a 1 MB line costs the same as a short one.
 */
import { signal } from "@preact/signals";
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { cutLongLines, rowsOf, sizeLabel } from "../long-lines.ts";
import { Visible } from "./visible-text.tsx";

/** The text the viewer shows (null: closed). */
const viewed = signal<string | null>(null);

/** Row height in px; the CSS (`.long-row`) uses the same. */
const ROW_PX = 18;
/** Rows rendered above and below the ones in sight. */
const OVERSCAN = 20;

/** `text` with its long lines cut; `plain` shows it as is, else its hidden characters are marked (visible-text.ts). */
export function BoundedText({ text, plain = false }: { text: string; plain?: boolean }) {
  const parts = useMemo(() => cutLongLines(text), [text]);
  const show = (t: string) => (plain ? t : <Visible text={t} multiline />);
  return (
    <>
      {parts.map((p, i) =>
        typeof p === "string" ? (
          <span key={i}>{show(p)}</span>
        ) : (
          <span key={i}>
            {show(p.head)}
            <span class="cut-note"> … </span>
            <button type="button" class="show-all" onClick={() => (viewed.value = p.full)}>
              Show all ({sizeLabel(p.full.length)})
            </button>
          </span>
        ),
      )}
    </>
  );
}

export function LongTextViewer() {
  const text = viewed.value;
  const dialog = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (text !== null && !el.open) el.showModal();
    if (text === null && el.open) el.close();
  }, [text]);
  return (
    <dialog ref={dialog} class="long-viewer" aria-label="Full text" onClose={() => (viewed.value = null)}>
      {text !== null && <Rows text={text} />}
      <form method="dialog" class="long-viewer-actions">
        <button type="submit" class="primary">
          Close
        </button>
      </form>
    </dialog>
  );
}

function Rows({ text }: { text: string }) {
  const rows = useMemo(() => rowsOf(text), [text]);
  const count = rows.length / 2;
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => setHeight(box.current?.clientHeight || 600), []);
  const first = Math.max(0, Math.floor(top / ROW_PX) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / ROW_PX) + OVERSCAN);
  const shown = [];
  for (let r = first; r < last; r++) {
    shown.push(
      <div key={r} class="long-row" style={{ transform: `translateY(${r * ROW_PX}px)` }}>
        <Visible text={text.slice(rows[2 * r]!, rows[2 * r + 1]!)} />
      </div>,
    );
  }
  return (
    <div class="long-rows" ref={box} tabIndex={0} role="region" aria-label={`Full text, ${count} rows`} onScroll={(e) => setTop(e.currentTarget.scrollTop)}>
      <div class="long-spacer" style={{ height: `${count * ROW_PX}px` }}>
        {shown}
      </div>
    </div>
  );
}
