/**
 * One line of agent markdown (a tool's title, a tool's description) as plain words (pure): inline
 * code, emphasis and link syntax are dropped, a heading's `#`s and a list's bullet too, so
 * "**Read** `src/a.ts`" reads "Read src/a.ts". Only the first paragraph is kept.
 */
export function inlinePlain(text: string): string {
  const first = text.trim().split(/\n\s*\n/, 1)[0] ?? "";
  return first
    .replace(/^\s{0,3}(?:#{1,6}\s+|[-*+]\s+|>\s?)/gm, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(`+)([^`]+?)\1/g, "$2")
    .replace(/(\*\*|__)(?=\S)([^]*?\S)\1/g, "$2")
    .replace(/(^|[\s(])([*_])(?=\S)([^*_\n]*?\S)\2(?=$|[\s).,:;!?])/g, "$1$3")
    .replace(/\s*\n\s*/g, " ");
}
