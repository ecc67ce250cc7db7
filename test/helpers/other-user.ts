/**
 * Another user for the cross-user cases: `nobody` (uid 65534). Files are handed to it with chown and
 * processes run as it through `setpriv`, both of which need root; the suites run as root, and a case
 * that needs this is skipped otherwise (`test.skipIf(!AS_ROOT)`).
 *
 *   await using other = await otherUsersProcess();   // a `sleep` running as nobody
 */
import { readFileSync } from "node:fs";
import { until } from "./until.ts";

export const OTHER_UID = 65534;
export const AS_ROOT = process.getuid?.() === 0;

export interface OtherUsersProcess extends AsyncDisposable {
  readonly pid: number;
  /** Its kernel start time (`/proc/<pid>/stat` field 22), as a discovery file records it. */
  readonly startTime: string;
}

/** A `sleep 30` running as `nobody`, resolved once the exec is done; killed on dispose. */
export async function otherUsersProcess(): Promise<OtherUsersProcess> {
  const proc = Bun.spawn(["setpriv", `--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, "--clear-groups", "sleep", "30"], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    await until(() => readFileSync(`/proc/${proc.pid}/comm`, "latin1").trim() === "sleep", 5000, "the process to run as nobody");
  } catch (err) {
    proc.kill("SIGKILL");
    await proc.exited;
    throw err;
  }
  const stat = readFileSync(`/proc/${proc.pid}/stat`, "latin1");
  return {
    pid: proc.pid,
    startTime: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!,
    [Symbol.asyncDispose]: async () => {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
