/**
 * A line diff of an edit (old text → new text) for display: common head and tail lines are cut to
 * `CONTEXT` lines of context; the changed middle is diffed by LCS when it is small enough
 * (`MAX_LCS_CELLS`), else shown as all removed then all added. Pure.
 */
export interface DiffLine {
  sign: "+" | "-" | " ";
  text: string;
}

const CONTEXT = 3;
/** Bound on the LCS table (old lines × new lines in the changed middle). */
const MAX_LCS_CELLS = 250_000;

const splitLines = (s: string | null): string[] => (s === null || s === "" ? [] : s.replace(/\n$/, "").split("\n"));

export function diffLines(oldText: string | null, newText: string): DiffLine[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = [];
  for (const t of a.slice(Math.max(0, head - CONTEXT), head)) out.push({ sign: " ", text: t });
  out.push(...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
  for (const t of a.slice(a.length - tail, a.length - tail + CONTEXT)) out.push({ sign: " ", text: t });
  return out;
}

function middle(a: string[], b: string[]): DiffLine[] {
  if (a.length * b.length > MAX_LCS_CELLS) {
    return [...a.map((text) => ({ sign: "-" as const, text })), ...b.map((text) => ({ sign: "+" as const, text }))];
  }
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ sign: " ", text: a[i]! });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) out.push({ sign: "-", text: a[i++]! });
    else out.push({ sign: "+", text: b[j++]! });
  }
  return out;
}
