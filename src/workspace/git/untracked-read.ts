/**
 * Reads an untracked file for the diff views (git has no diff of it against HEAD): at most
 * UNTRACKED_READ_BYTES, only when it lies in the workspace, a regular file opened without following
 * a link, in a directory whose real path is in the workspace too. Anything else reads as nothing.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { isInside } from "../paths.ts";

/** Bytes read of one untracked file; a larger file's count and hunk are marked truncated. */
export const UNTRACKED_READ_BYTES = 1024 * 1024;
/** A NUL in the first bytes marks a file binary (git's rule). */
const BINARY_SNIFF_BYTES = 8 * 1024;

export interface UntrackedText {
  readonly text: string;
  readonly isBinary: boolean;
  readonly truncated: boolean;
}

/** The start of the untracked file at absolute `path`, or null when it is not to be read. */
export function readUntracked(root: string, path: string): UntrackedText | null {
  if (!isInside(root, path)) return null;
  try {
    if (!isInside(root, realpathSync(dirname(path)))) return null;
  } catch {
    return null;
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const cap = Math.min(st.size, UNTRACKED_READ_BYTES);
    const buf = Buffer.alloc(cap);
    let got = 0;
    while (got < cap) {
      const n = readSync(fd, buf, got, cap - got, got);
      if (n === 0) break;
      got += n;
    }
    const isBinary = buf.subarray(0, Math.min(got, BINARY_SNIFF_BYTES)).includes(0);
    return { text: isBinary ? "" : buf.toString("utf8", 0, got), isBinary, truncated: st.size > UNTRACKED_READ_BYTES };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The lines of a text (a last line without its newline counts). */
export function textLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
