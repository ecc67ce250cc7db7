/**
 * A line diff of an edit (old text → new text) for display: common head and tail lines are cut to
 * `CONTEXT` lines of context; the changed middle is diffed by LCS when it is small enough
 * (`MAX_LCS_CELLS`), else shown as all removed then all added. Pure.
 *
 * Bound: at most `MAX_DIFF_LINES` lines and `MAX_DIFF_CHARS` characters of text are returned (a
 * line that crosses the character bound is cut); the rest is only counted in `omitted`, so an edit
 * of any size costs a bounded render. Lines are appended one by one, never spread into a call (a
 * spread of ~125k items overflows the stack).
 */
export interface DiffLine {
  sign: "+" | "-" | " ";
  text: string;
}

export interface Diff {
  lines: DiffLine[];
  /** Diff lines past the bounds, not returned. */
  omitted: number;
}

const CONTEXT = 3;
/** Bound on the LCS table (old lines × new lines in the changed middle). */
const MAX_LCS_CELLS = 250_000;
export const MAX_DIFF_LINES = 1000;
export const MAX_DIFF_CHARS = 64 * 1024;

const splitLines = (s: string | null): string[] => (s === null || s === "" ? [] : s.replace(/\n$/, "").split("\n"));

/** Collects diff lines up to the bounds and counts the rest. */
class Collector {
  readonly lines: DiffLine[] = [];
  omitted = 0;
  private chars = 0;

  add(sign: DiffLine["sign"], text: string): void {
    if (this.lines.length >= MAX_DIFF_LINES || this.chars >= MAX_DIFF_CHARS) {
      this.omitted++;
      return;
    }
    const room = MAX_DIFF_CHARS - this.chars;
    const shown = text.length > room ? `${text.slice(0, room)}…` : text;
    this.chars += Math.min(text.length, room);
    this.lines.push({ sign, text: shown });
  }
}

export function diffLines(oldText: string | null, newText: string): Diff {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out = new Collector();
  for (let i = Math.max(0, head - CONTEXT); i < head; i++) out.add(" ", a[i]!);
  middle(a, head, a.length - tail, b, head, b.length - tail, out);
  for (let i = a.length - tail; i < Math.min(a.length, a.length - tail + CONTEXT); i++) out.add(" ", a[i]!);
  return { lines: out.lines, omitted: out.omitted };
}

/** The changed middle, `a[aFrom, aTo)` against `b[bFrom, bTo)`. */
function middle(a: string[], aFrom: number, aTo: number, b: string[], bFrom: number, bTo: number, out: Collector): void {
  const n = aTo - aFrom;
  const m = bTo - bFrom;
  if (n * m > MAX_LCS_CELLS) {
    for (let i = aFrom; i < aTo; i++) out.add("-", a[i]!);
    for (let j = bFrom; j < bTo; j++) out.add("+", b[j]!);
    return;
  }
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[aFrom + i] === b[bFrom + j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[aFrom + i] === b[bFrom + j]) {
      out.add(" ", a[aFrom + i]!);
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) out.add("-", a[aFrom + i++]!);
    else out.add("+", b[bFrom + j++]!);
  }
}
