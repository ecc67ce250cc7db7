/**
 * CPU time a live process has used so far, summed over its threads from
 * `/proc/<pid>/task/<tid>/schedstat` (Linux only; nanosecond resolution, unlike the 10 ms ticks of
 * `/proc/<pid>/stat`; a thread that has already exited is no longer counted).
 * CPU time is steadier than wall time on a shared machine: outside load delays the server but barely
 * changes the work it does.
 */
import { readdirSync, readFileSync } from "node:fs";

/** On-CPU seconds, or null where /proc is not available. */
export function cpuSeconds(pid: number): number | null {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread exited between the listing and the read
      }
    }
  } catch {
    return null;
  }
  return ns / 1e9;
}
