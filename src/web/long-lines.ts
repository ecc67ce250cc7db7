/**
 * Long lines cut for display (pure). Laying out one unbroken run costs the browser time that grows
 * with its length (a 1 MB run of base64 or a minified bundle froze the tab), so a line past
 * `MAX_LINE_CHARS` shows only its head; the whole line opens in the long-text viewer, which lays
 * out only the rows in sight (`rowsOf`).
 */

/** Characters of one line shown in place. */
export const MAX_LINE_CHARS = 2_000;
/** Characters per row in the long-text viewer (rows do not wrap). */
export const ROW_CHARS = 200;

/** A piece of display text: plain, or the head of a line that goes on (`full` is the whole line). */
export type LinePart = string | { head: string; full: string };

/** `text` with every line longer than `bound` cut to its head. One string when nothing is cut. */
export function cutLongLines(text: string, bound = MAX_LINE_CHARS): LinePart[] {
  if (text.length <= bound) return [text];
  const out: LinePart[] = [];
  let plainFrom = 0;
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    if (end - start > bound) {
      if (start > plainFrom) out.push(text.slice(plainFrom, start));
      out.push({ head: text.slice(start, start + bound), full: text.slice(start, end) });
      plainFrom = end;
    }
    if (nl < 0) break;
    start = nl + 1;
  }
  if (plainFrom < text.length) out.push(text.slice(plainFrom));
  return out;
}

/** Row `[start, end)` offsets of `text` for the viewer: each line split into rows of `width` characters. */
export function rowsOf(text: string, width = ROW_CHARS): Uint32Array {
  const offsets: number[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    let at = start;
    do {
      offsets.push(at, Math.min(at + width, end));
      at += width;
    } while (at < end);
    if (nl < 0) break;
    start = nl + 1;
  }
  return Uint32Array.from(offsets);
}

/** `12 KB`, `1.0 MB`: the size of a text to open. */
export function sizeLabel(chars: number): string {
  if (chars < 1000) return `${chars} characters`;
  if (chars < 1_000_000) return `${Math.round(chars / 1000)} K characters`;
  return `${(chars / 1_000_000).toFixed(1)} M characters`;
}
