/** Whether processes are gone, for tests that must leave no child behind. */
import { readdirSync, readFileSync } from "node:fs";
import { until } from "./until.ts";

/** How long a stopped daemon's children may take to disappear (the stop sequence is ~3 s at worst). */
export const CHILD_GONE_TIMEOUT_MS = 6000;

/** True once `pid` no longer exists (a zombie waiting for its reaper counts as gone: it cannot run). */
export function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

export const pidAlive = (pid: number) => !pidGone(pid);

/** Waits for every pid to be gone; on timeout kills the stragglers' groups and throws. */
export async function expectPidsGone(pids: readonly number[], timeoutMs = CHILD_GONE_TIMEOUT_MS, what = "agent children"): Promise<void> {
  try {
    await until(() => pids.every(pidGone), timeoutMs, `${what} ${pids.join(", ")} to exit`);
  } catch (err) {
    for (const pid of pids.filter(pidAlive)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
    }
    throw err;
  }
}

/** Live (not zombie) direct children of `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid && fields[0] !== "Z") out.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return out;
}
