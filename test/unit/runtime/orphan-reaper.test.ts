import { expect, test } from "bun:test";
import { FAMILY_MARKER_VAR, OrphanReaper } from "../../../src/runtime/orphan-reaper.ts";
import { expectPidsGone, pidAlive } from "../../helpers/pids.ts";

/** A `sleep` in a session of its own (as a tool that left the agent's session), with `env`. */
const loner = (env: Record<string, string>) => Bun.spawn(["sleep", "30"], { env, detached: true, stdin: "ignore", stdout: "ignore", stderr: "ignore" });

test.skipIf(process.platform !== "linux")(
  "once the daemon is gone, the watcher also ends processes it was never told about that carry its family marker, and only those",
  async () => {
    const reaper = new OrphanReaper();
    const root = loner({});
    const unregistered = loner({ HOME: "/nowhere", [FAMILY_MARKER_VAR]: reaper.marker });
    const anotherDaemons = loner({ [FAMILY_MARKER_VAR]: new OrphanReaper().marker });
    try {
      reaper.track(root.pid);
      await reaper.close(); // as when the daemon dies: the watcher's pipe closes
      await expectPidsGone([root.pid, unregistered.pid], 3000, "the registered root and the marked tool");
      expect(pidAlive(anotherDaemons.pid)).toBe(true);
    } finally {
      for (const proc of [root, unregistered, anotherDaemons]) proc.kill("SIGKILL");
    }
  },
);
