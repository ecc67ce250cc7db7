/**
 * The checkout's npm scripts, as the README uses them: `npm start` execs the daemon (npm's child is
 * the daemon itself, no shell between), so a SIGTERM to npm, which npm forwards to its child, stops
 * the daemon instead of orphaning it; `npm run svc -- …` runs any command. Needs npm on PATH (the
 * machine's, as a user's); the Bun it runs is the checkout's own (npm puts node_modules/.bin first).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { version as packageVersion } from "../../package.json";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { pidAlive } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";

const NPM = Bun.which("npm");

/** The parent pid of a live process, from /proc (Linux). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

function npm(args: string[], env: Record<string, string>) {
  return Bun.spawn([NPM!, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe.skipIf(NPM === null || process.platform !== "linux")("npm scripts", () => {
  test("npm start execs the daemon: a SIGTERM to npm stops it, nothing is orphaned", async () => {
    await using dir = tempDir();
    const child = npm(["--silent", "start", "--", "--port", "0", "--workspace", dir.path, "--ready-json"], { SVC_HOME: dir.path });
    let daemonPid = 0;
    try {
      const reader = child.stdout.getReader();
      let out = "";
      const ready = await until(
        async () => {
          const { value, done } = await reader.read();
          if (done) throw new Error(`npm start ended before the daemon was ready: ${await new Response(child.stderr).text()}`);
          out += new TextDecoder().decode(value);
          return out.includes("\n") ? (JSON.parse(out.slice(0, out.indexOf("\n"))) as { pid: number; url: string }) : undefined;
        },
        20_000,
        "the daemon's ready line through npm start",
      );
      daemonPid = ready.pid;
      expect(parentOf(daemonPid)).toBe(child.pid);
      expect((await fetch(`${ready.url}/health`)).status).toBe(200);

      child.kill("SIGTERM");
      await child.exited;
      await until(() => !pidAlive(daemonPid) || undefined, 8000, "the daemon to stop after npm's SIGTERM");
    } finally {
      if (daemonPid !== 0 && pidAlive(daemonPid)) process.kill(daemonPid, "SIGKILL");
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await child.exited;
    }
  });

  test("npm run svc -- <command> runs svc", async () => {
    const child = npm(["--silent", "run", "svc", "--", "--version"], {});
    const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(exitCode).toBe(0);
    expect(stdout).toBe(`${packageVersion}\n`);
  });
});
