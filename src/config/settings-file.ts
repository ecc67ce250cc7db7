/**
 * Reads a settings file at boot without trusting what sits at its path. The file is opened first
 * (non-blocking, so a FIFO cannot stall boot waiting for a writer) and the opened descriptor is
 * examined, so a swap between a check and the open changes nothing: it must be a regular file
 * (a device such as `/dev/zero`, a FIFO or a directory is refused) and at most MAX_SETTINGS_BYTES
 * long, and at most one byte more than that is ever read, whatever its size claims. A UTF-8 byte
 * order mark is dropped.
 * A symlink is followed (dotfile managers link settings files), and its target is held to the same rules.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { BootError } from "./boot-error.ts";

/** A settings file larger than this is refused, and never read past this many bytes plus one. */
export const MAX_SETTINGS_BYTES = 1 << 20;

const UTF8_BOM = [0xef, 0xbb, 0xbf];

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** The text of settings file `file` (absolute), or null when nothing exists at that path. */
export function readSettingsText(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return null;
    throw new BootError(`cannot read settings file ${file} (${errnoOf(err) ?? (err as Error).message})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new BootError(`settings file ${file} is not a regular file`);
    if (st.size > MAX_SETTINGS_BYTES) throw new BootError(`settings file ${file} is larger than 1 MiB`);
    // Read to end of file, not to the size fstat gave (the file may have grown since), and at most
    // one byte past the cap, which is enough to refuse it.
    const buf = Buffer.allocUnsafe(MAX_SETTINGS_BYTES + 1);
    let filled = 0;
    for (;;) {
      const n = readSync(fd, buf, filled, buf.length - filled, null);
      filled += n;
      if (n === 0 || filled === buf.length) break;
    }
    if (filled > MAX_SETTINGS_BYTES) throw new BootError(`settings file ${file} is larger than 1 MiB`);
    const bom = filled >= UTF8_BOM.length && UTF8_BOM.every((byte, i) => buf[i] === byte);
    return buf.toString("utf8", bom ? UTF8_BOM.length : 0, filled);
  } catch (err) {
    if (err instanceof BootError) throw err;
    throw new BootError(`cannot read settings file ${file} (${errnoOf(err) ?? (err as Error).message})`);
  } finally {
    closeSync(fd);
  }
}
