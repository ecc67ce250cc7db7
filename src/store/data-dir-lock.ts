/**
 * One daemon owns a data dir's `svc.db`: the first to open it takes an exclusive `flock` on
 * `svc.lock` beside it and holds it for its life (the kernel releases it when the daemon exits,
 * SIGKILL included, so a crash never leaves a stale lock). The owner writes its pid into the file so
 * a second daemon can say who owns it.
 *
 * Why a lock file and not SQLite's `locking_mode=EXCLUSIVE`: the latter only shows up as
 * SQLITE_BUSY at some later write (indistinguishable from a moment's contention) and cannot name the
 * owner; a lock file answers at open, at once, with the owner's pid.
 *
 * Where `flock` is not available (no Linux libc), nothing is locked: the daemon behaves as before.
 * A daemon that only reads (`readOnly`: svc.db or its folder cannot be written) takes the lock
 * through a read-only descriptor when it cannot open the file for writing, and goes without it
 * when there is no lock file to open: it writes nothing to protect.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { libc } from "../runtime/libc.ts";

export const LOCK_FILE = "svc.lock";

/** Another daemon holds the data dir: this one must not write (or restore from) its database. */
export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
  constructor(readonly ownerPid: number | null) {
    super(`the data dir is owned by another svc daemon${ownerPid === null ? "" : ` (pid ${ownerPid})`}; this daemon does not record sessions`);
  }
}

export interface DataDirLock {
  /** Releases the lock (closing the file); idempotent. */
  release(): void;
}

/** Takes the data dir's lock (creating the dir, owner only) or throws `DataDirLockedError`. */
export function lockDataDir(dataDir: string, readOnly = false): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  const fd = readOnly ? openForReading(path) : openSync(path, "a+", 0o600);
  if (fd === null) return { release() {} };
  const c = libc();
  if (c !== null && !c.tryLockExclusive(fd)) {
    closeSync(fd);
    throw new DataDirLockedError(ownerPid(path));
  }
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, `${process.pid}\n`);
  } catch (error) {
    // A read-only descriptor holds the lock all the same; only the pid goes unwritten.
    if (!readOnly) throw error;
  }
  let held = true;
  return {
    release() {
      if (held) closeSync(fd);
      held = false;
    },
  };
}

/** The lock file for writing when it can be, else for reading; null when it cannot be opened at all. */
function openForReading(path: string): number | null {
  try {
    return openSync(path, "a+", 0o600);
  } catch {
    try {
      return openSync(path, "r");
    } catch {
      return null;
    }
  }
}

/** The pid the owner wrote, or null when the file holds none (yet). */
function ownerPid(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
