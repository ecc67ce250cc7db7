/**
 * Writes a file whole or not at all: a fresh temp file beside it (created exclusively, links not
 * followed, with `mode`), synced, then renamed over the path; a failed write removes the temp file.
 */
import { closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";

export function writeAtomically(path: string, text: string, mode: number): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
}
