/**
 * Reads an untracked file for the diff views (git has no diff of it against HEAD): at most
 * UNTRACKED_READ_BYTES (or less, the caller's remaining budget), only when it lies in the
 * workspace, a regular file opened without following a link, in a directory whose real path is in
 * the workspace too. Anything else reads as nothing. Reads are asynchronous, so a diff over many
 * large files never holds the event loop; the diff list bounds them in total (`git-diff.ts`).
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { dirname } from "node:path";
import { isInside } from "../paths.ts";

/** Bytes read of one untracked file; a larger file's count and hunk are marked truncated. */
export const UNTRACKED_READ_BYTES = 1024 * 1024;
/** A NUL in the first bytes marks a file binary (git's rule). */
const BINARY_SNIFF_BYTES = 8 * 1024;
const NEWLINE = 0x0a;

export interface UntrackedBytes {
  readonly bytes: Buffer;
  readonly isBinary: boolean;
  /** The file holds more than was read. */
  readonly truncated: boolean;
}

/** The first at most `cap` bytes of the untracked file at absolute `path`, or null when it is not to be read. */
export async function readUntracked(root: string, path: string, cap = UNTRACKED_READ_BYTES): Promise<UntrackedBytes | null> {
  if (!isInside(root, path)) return null;
  try {
    if (!isInside(root, await realpath(dirname(path)))) return null;
  } catch {
    return null;
  }
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (file === null) return null;
  try {
    const st = await file.stat();
    if (!st.isFile()) return null;
    const want = Math.min(st.size, cap, UNTRACKED_READ_BYTES);
    const buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await file.read(buf, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const bytes = buf.subarray(0, got);
    return { bytes, isBinary: bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0), truncated: st.size > want };
  } catch {
    return null;
  } finally {
    await file.close().catch(() => {});
  }
}

/** How many lines `bytes` hold (a last line without its newline counts), without decoding them. */
export function countLines(bytes: Uint8Array): number {
  let lines = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE ? lines + 1 : lines;
}

/** The lines of a text (a last line without its newline counts). */
export function textLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
