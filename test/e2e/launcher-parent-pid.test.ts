/**
 * `--parent-pid`: when the watched process ends, the daemon shuts down gracefully (sessions closed,
 * agent children and everything they started stopped, discovery file removed, exit 0) within the
 * contract's 2 s. Against the sources, or the binary under SVC_TEST_TARGET=binary.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { svcCommand } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { discoveryFolder, spawnReady, type ReadyLine } from "../helpers/launcher.ts";
import { expectPidsGone, pidAlive, pidGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";

/** The launcher contract: the daemon is gone this long after its parent. */
const PARENT_EXIT_BOUND_MS = 2000;
const LAUNCHER_PARENT = join(import.meta.dir, "..", "fixtures", "launcher-parent.ts");

interface Busy {
  /** The agent child and the tool processes it left running. */
  agentFamily: number[];
}

/**
 * Makes the daemon at `url` busy the way a user would leave it: a session whose agent started a
 * background tool process (in its own session, like a detached tool) and is mid-turn.
 */
async function makeBusy(url: string, wirePath: string): Promise<Busy> {
  const created = await jsonRequest(url, "POST", "/session", {});
  expect(created.status).toBe(200);
  const sessionId = created.body.sessionId as string;
  const prompt = { prompt: [{ type: "text", text: "@spawn detached\n@spawn group\n@hang" }] };
  expect((await jsonRequest(url, "POST", `/session/${sessionId}/prompt`, prompt)).status).toBe(202);
  const wire = await until(async () => {
    const entries = await readWireLog(wirePath);
    return entries.filter((e) => e.event === "spawned").length === 2 ? entries : null;
  }, 10_000, "the agent's background processes");
  const agentFamily = [wire.find((e) => e.event === "start")!.pid, ...wire.filter((e) => e.event === "spawned").map((e) => e.child as number)];
  for (const pid of agentFamily) expect(pidAlive(pid)).toBe(true);
  return { agentFamily };
}

function setUp(root: string) {
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const wirePath = join(root, "wire.jsonl");
  return { home, workspace, wirePath, env: { SVC_HOME: home, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: wirePath } };
}

describe.concurrent("--parent-pid", () => {
  test("the watched process is SIGKILLed: the busy daemon stops everything and exits 0 within 2 s", async () => {
    await using dir = tempDir("svc-parent-");
    const { home, workspace, wirePath, env } = setUp(dir.path);
    const watched = Bun.spawn(["sleep", "60"], { stdio: ["ignore", "ignore", "ignore"] });
    try {
      await using d = await spawnReady(["--workspace", workspace, "--parent-pid", String(watched.pid), "--session-idle-timeout-ms", "0"], { env });
      const { agentFamily } = await makeBusy(d.ready.url, wirePath);
      expect(readdirSync(discoveryFolder(home))).toHaveLength(1);

      watched.kill("SIGKILL");
      const exitCode = await Promise.race([d.proc.exited, Bun.sleep(PARENT_EXIT_BOUND_MS).then(() => "still running" as const)]);
      expect(exitCode).toBe(0);
      await expectPidsGone(agentFamily, PARENT_EXIT_BOUND_MS, "the agent and its tools");
      expect(readdirSync(discoveryFolder(home))).toEqual([]);
      expect(d.stderr()).toContain("shutting down reason=parent-exited");
      // The announcement stays the only stdout line.
      expect(d.stdout().split("\n")).toHaveLength(2);
    } finally {
      watched.kill("SIGKILL");
      await watched.exited;
    }
  });

  test("the launcher that spawned the daemon is SIGKILLed: the daemon and its agent are gone within 2 s", async () => {
    await using dir = tempDir("svc-parent-");
    const { home, workspace, wirePath, env } = setUp(dir.path);
    const launcher = Bun.spawn([process.execPath, LAUNCHER_PARENT, ...svcCommand(), "serve", "--port", "0", "--ready-json", "--workspace", workspace, "--session-idle-timeout-ms", "0"], {
      env: { ...process.env, ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let daemonPid: number | null = null;
    try {
      const reader = launcher.stdout.getReader();
      let text = "";
      const line = await until(async () => {
        const { value, done } = await reader.read();
        if (done) throw new Error("the launcher's stdout ended before the ready line");
        text += new TextDecoder().decode(value);
        return text.includes("\n") ? text.slice(0, text.indexOf("\n")) : null;
      }, 15_000, "the ready line");
      const ready = JSON.parse(line) as ReadyLine;
      daemonPid = ready.pid;
      const { agentFamily } = await makeBusy(ready.url, wirePath);
      const discoveryFile = join(discoveryFolder(home), readdirSync(discoveryFolder(home))[0]!);

      launcher.kill("SIGKILL");
      await launcher.exited;
      await until(() => pidGone(ready.pid), PARENT_EXIT_BOUND_MS, "the daemon to exit after its launcher");
      await expectPidsGone(agentFamily, PARENT_EXIT_BOUND_MS, "the agent and its tools");
      expect(existsSync(discoveryFile)).toBe(false);
    } finally {
      launcher.kill("SIGKILL");
      await launcher.exited;
      // Whatever the outcome, nothing of this test stays running.
      if (daemonPid !== null && pidAlive(daemonPid)) process.kill(daemonPid, "SIGKILL");
    }
  });

  test("the watched process exits but stays an unreaped zombie: that is an end too", async () => {
    await using dir = tempDir("svc-parent-");
    const { workspace, env } = setUp(dir.path);
    // `sleep 30` runs in the background of a shell that then execs `sleep 60`, which never reaps it.
    const holder = Bun.spawn(["sh", "-c", "sleep 30 & echo $!; exec sleep 60"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    try {
      const watched = Number(new TextDecoder().decode((await holder.stdout.getReader().read()).value).trim());
      // Killed only after the exec: before it, the shell could still reap its child.
      await until(() => readFileSync(`/proc/${holder.pid}/cmdline`, "utf8") === "sleep\x0060\x00", 5000, "the shell to exec sleep");
      await using d = await spawnReady(["--workspace", workspace, "--parent-pid", String(watched)], { env });
      process.kill(watched, "SIGKILL");
      await until(() => /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${watched}/stat`, "utf8")), 5000, "the watched process to be a zombie");
      const exitCode = await Promise.race([d.proc.exited, Bun.sleep(PARENT_EXIT_BOUND_MS).then(() => "still running" as const)]);
      expect(exitCode).toBe(0);
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("while the watched process lives, the daemon keeps serving", async () => {
    await using dir = tempDir("svc-parent-");
    const { workspace, env } = setUp(dir.path);
    const watched = Bun.spawn(["sleep", "60"], { stdio: ["ignore", "ignore", "ignore"] });
    try {
      await using d = await spawnReady(["--workspace", workspace, "--parent-pid", String(watched.pid)], { env });
      // Several watch intervals pass (each answered request is one more chance to have stopped).
      const end = Date.now() + 1000;
      while (Date.now() < end) {
        expect((await fetch(`${d.ready.url}/health`)).status).toBe(200);
        await Bun.sleep(50);
      }
      expect(d.proc.exitCode).toBeNull();
      expect(await d.terminate()).toBe(0);
    } finally {
      watched.kill("SIGKILL");
      await watched.exited;
    }
  });
});
