/**
 * Which process a pid names, robust to PID reuse: the pid plus its kernel start time
 * (`/proc/<pid>/stat` field 22, clock ticks since boot). A pid that is later held by another process
 * has another start time. Where /proc is missing (not Linux), the start time is null and only the
 * pid's existence can be checked. Also: whether a process runs as a given user, and whether a pid
 * names this process itself.
 */
import { existsSync, readFileSync } from "node:fs";

export interface ProcessIdentity {
  readonly pid: number;
  /** Kernel start time in clock ticks since boot (a decimal string: it can pass 2^53), or null without /proc. */
  readonly startTime: string | null;
}

type StatRead = { kind: "live"; startTime: string } | { kind: "gone" } | { kind: "unavailable" };

/** Field 22 of `/proc/<pid>/stat` for a live (not zombie) process. comm (field 2) may hold spaces and parentheses. */
function readStat(pid: number): StatRead {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ESRCH" ? { kind: "gone" } : { kind: "unavailable" };
  }
  // After ") ": state (field 3) … starttime (field 22) is index 19.
  const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const startTime = fields[19];
  if (state === "Z" || state === "X") return { kind: "gone" };
  return startTime !== undefined && /^\d+$/.test(startTime) ? { kind: "live", startTime } : { kind: "unavailable" };
}

/** Whether a signal could reach `pid` (EPERM: it exists, owned by someone else). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The identity of the live process `pid` now, or null when there is none (an exited zombie counts as none). */
export function identify(pid: number): ProcessIdentity | null {
  if (!Number.isSafeInteger(pid) || pid <= 0 || !pidExists(pid)) return null;
  const stat = readStat(pid);
  if (stat.kind === "gone") return null;
  return { pid, startTime: stat.kind === "live" ? stat.startTime : null };
}

/** True while the process `who` names is still running: same pid, and (where known) the same start time. */
export function stillRunning(who: ProcessIdentity): boolean {
  const now = identify(who.pid);
  return now !== null && (who.startTime === null || now.startTime === null || now.startTime === who.startTime);
}

/** The real and effective uids of `pid` (`/proc/<pid>/status`, line `Uid:`), or null where unknown. */
function uidsOf(pid: number): { real: number; effective: number } | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "latin1");
  } catch {
    return null;
  }
  const match = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
  return match === null ? null : { real: Number(match[1]), effective: Number(match[2]) };
}

/**
 * Whether the live process `pid` runs as `uid`: its real and effective uids are both `uid`. Without
 * /proc, whether an unprivileged signal could reach it (same user); as root that cannot be told
 * apart, and the answer is true.
 */
export function runsAs(pid: number, uid: number): boolean {
  const uids = uidsOf(pid);
  if (uids !== null) return uids.real === uid && uids.effective === uid;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` names this very process: its own pid, or on Linux one of its threads (a thread id
 * answers signals and has a /proc entry like a pid). Watching it would never see it end.
 */
export function isThisProcess(pid: number): boolean {
  return pid === process.pid || (Number.isSafeInteger(pid) && pid > 0 && existsSync(`/proc/self/task/${pid}`));
}
