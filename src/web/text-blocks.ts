/**
 * How long texts are cut for display (pure). Both splitters are prefix-stable: splitting a suffix
 * that starts at a part boundary gives the same parts as splitting the whole, so a growing text
 * can be re-split from its last part only.
 */

/**
 * Bound on one markdown block's size: a bigger block shows as plain preformatted text (parsing and
 * sanitizing cost grows with size; past this a single render could block the page over 100 ms).
 */
export const MAX_MARKDOWN_BLOCK_CHARS = 8_000;

/**
 * Splits markdown at blank lines outside code fences, so a long message renders block by block and
 * only its last block re-renders while it streams. Each block keeps its trailing newline.
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | null = null;
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf("\n", pos);
    const lineEnd = end < 0 ? text.length : end + 1;
    const line = text.slice(pos, end < 0 ? text.length : end);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    } else if (fence === null && line.trim() === "" && pos > start) {
      blocks.push(text.slice(start, lineEnd));
      start = lineEnd;
    }
    pos = lineEnd;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}

/** Lines per piece of a plain-text block: a growing block re-lays out only its last piece. */
const PLAIN_PIECE_LINES = 100;

/** Splits a plain text into pieces of `PLAIN_PIECE_LINES` lines (each keeps its newlines). */
export function splitPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    if (++lines < PLAIN_PIECE_LINES) continue;
    pieces.push(text.slice(start, i + 1));
    start = i + 1;
    lines = 0;
  }
  if (start < text.length || pieces.length === 0) pieces.push(text.slice(start));
  return pieces;
}
