/**
 * The restart loop of a daemon svc's launchd agent starts, bounded by the daemon itself: launchd
 * restarts a job that exits with a failure every ThrottleInterval (10 s) forever, with no start
 * limit like systemd's StartLimitBurst. So each failed start is recorded in
 * `<data dir>/logs/service-starts.json` (the times of the failures within the window, at most
 * MAX_FAILED_STARTS of them), and the start that makes MAX_FAILED_STARTS failures within
 * WINDOW_MS exits with the successful code, which the agent's `KeepAlive` / `SuccessfulExit` false
 * does not restart. A start that reaches its listening line clears the record.
 *
 * The agent's log (`<data dir>/logs/service.log`, which launchd opens for appending) is rotated at
 * each launchd start once it is past MAX_LOG_BYTES: copied to `service.log.1` (replacing the last
 * one) and truncated in place, so launchd's descriptor keeps writing to `service.log`.
 */
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Failed starts within WINDOW_MS after which the daemon stops the loop. */
export const MAX_FAILED_STARTS = 5;
/** The window: five failures 10 s apart fall well within it. */
export const WINDOW_MS = 5 * 60_000;
/** The log's size past which a start rotates it. */
export const MAX_LOG_BYTES = 8 * 1024 * 1024;

const recordOf = (dataDir: string) => join(dataDir, "logs", "service-starts.json");
export const serviceLogOf = (dataDir: string) => join(dataDir, "logs", "service.log");

function failuresIn(dataDir: string, now: number): number[] {
  try {
    const parsed = JSON.parse(readFileSync(recordOf(dataDir), "utf8").slice(0, 4096)) as { failures?: unknown };
    const failures = Array.isArray(parsed.failures) ? parsed.failures : [];
    return failures.filter((t): t is number => typeof t === "number" && t <= now && now - t < WINDOW_MS);
  } catch {
    return [];
  }
}

/** Records a failed start at `now`; `giveUp` when it is the MAX_FAILED_STARTS-th within the window (the record is then cleared). */
export function recordFailedStart(dataDir: string, now: number): { readonly failures: number; readonly giveUp: boolean } {
  const failures = [...failuresIn(dataDir, now), now].slice(-MAX_FAILED_STARTS);
  const path = recordOf(dataDir);
  if (failures.length >= MAX_FAILED_STARTS) {
    rmSync(path, { force: true });
    return { failures: failures.length, giveUp: true };
  }
  mkdirSync(join(dataDir, "logs"), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify({ failures }), { mode: 0o600 });
  renameSync(temp, path);
  return { failures: failures.length, giveUp: false };
}

/** A start that succeeded: the failures before it no longer count. */
export function clearFailedStarts(dataDir: string): void {
  rmSync(recordOf(dataDir), { force: true });
}

/** Rotates the agent's log when it is past `maxBytes`; true when it did. */
export function rotateServiceLog(dataDir: string, maxBytes = MAX_LOG_BYTES): boolean {
  const log = serviceLogOf(dataDir);
  const size = statSync(log, { throwIfNoEntry: false })?.size ?? 0;
  if (size <= maxBytes) return false;
  const previous = `${log}.1`;
  copyFileSync(log, previous);
  truncateSync(log, 0);
  return true;
}
