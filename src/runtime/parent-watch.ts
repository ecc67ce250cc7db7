/**
 * `--parent-pid`: watch a process (the launcher that started the daemon) and call back once when it
 * ends. Portable and bounded: every POLL_INTERVAL_MS the watched identity (pid + start time, see
 * process-identity.ts) is checked, so an exited parent is noticed within that interval even if its
 * pid is reused meanwhile or it lingers as an unreaped zombie. (A pidfd would need a blocking poll
 * off the event loop; a 250 ms check costs one small /proc read and keeps the bound well under the
 * 2 s the launcher contract promises.)
 */
import { identify, stillRunning, type ProcessIdentity } from "./process-identity.ts";

/** How often the parent is checked: the worst-case delay between its exit and `onGone`. */
export const POLL_INTERVAL_MS = 250;

export interface ParentWatch {
  readonly parent: ProcessIdentity;
  /** Stops watching (idempotent); `onGone` is not called afterwards. */
  stop(): void;
}

/** Starts watching `pid`; null when no such process is running now (the caller reports it). */
export function watchParent(pid: number, onGone: () => void): ParentWatch | null {
  const parent = identify(pid);
  if (parent === null) return null;
  const timer = setInterval(() => {
    if (stillRunning(parent)) return;
    clearInterval(timer);
    onGone();
  }, POLL_INTERVAL_MS);
  // The listener keeps the process alive; the watch alone must not.
  timer.unref();
  return { parent, stop: () => clearInterval(timer) };
}
