/**
 * The daemon's shutdown bound (2 s, any cause; here the `--parent-pid` process ends) holds with
 * agents that make it hard: one still starting (its `initialize` never answered), and one deaf to
 * SIGTERM and stdin EOF with tools of its own mid-turn. And the `svc serve` process writes nothing
 * to stderr around its logger, even when a library (the ACP SDK) prints agent-chosen text there.
 * Against the sources, or the binary under SVC_TEST_TARGET=binary.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { spawnReady } from "../helpers/launcher.ts";
import { expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** The launcher contract: the daemon is gone this long after its parent. */
const PARENT_EXIT_BOUND_MS = 2000;

function setUp(root: string, env: Record<string, string> = {}) {
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const wirePath = join(root, "wire.jsonl");
  return { workspace, wirePath, env: { SVC_HOME: home, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: wirePath, ...env } };
}

/** A process to watch with --parent-pid; the test kills it. */
const watchedProcess = () => Bun.spawn(["sleep", "60"], { stdio: ["ignore", "ignore", "ignore"] });

describe.concurrent("shutdown within 2 s of the parent's exit", () => {
  test("an agent still starting: the waiting create is answered 503 daemon_shutting_down, the child is killed, exit 0 in time", async () => {
    await using dir = tempDir("svc-stopstart-");
    const { workspace, wirePath, env } = setUp(dir.path, { FAKE_AGENT_INIT_HANG: "1" });
    const watched = watchedProcess();
    try {
      await using d = await spawnReady(["--workspace", workspace, "--parent-pid", String(watched.pid), "--initialize-timeout-ms", "60000"], { env });
      const pending = jsonRequest(d.ready.url, "POST", "/session", {});
      const wire = await until(async () => {
        const entries = await readWireLog(wirePath);
        return entries.some((e) => e.method === "initialize") ? entries : null;
      }, 10_000, "the agent's initialize");
      const agentPid = wire.find((e) => e.event === "start")!.pid;

      watched.kill("SIGKILL");
      const exitCode = await Promise.race([d.proc.exited, Bun.sleep(PARENT_EXIT_BOUND_MS).then(() => "still running" as const)]);
      expect(exitCode).toBe(0);
      const reply = await pending;
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ code: "daemon_shutting_down", retryable: false });
      await expectPidsGone([agentPid], 1000, "the starting agent");
      expect(d.stderr()).not.toContain("unhandled");
    } finally {
      watched.kill("SIGKILL");
      await watched.exited;
    }
  });

  test("an agent deaf to SIGTERM and stdin EOF, mid-turn with a stubborn, an orphaned and a detached tool: all gone, exit 0 in time", async () => {
    await using dir = tempDir("svc-stopstart-");
    const { workspace, wirePath, env } = setUp(dir.path, { FAKE_AGENT_IGNORE_SIGTERM: "1" });
    const watched = watchedProcess();
    try {
      await using d = await spawnReady(["--workspace", workspace, "--parent-pid", String(watched.pid), "--session-idle-timeout-ms", "0"], { env });
      const created = await jsonRequest(d.ready.url, "POST", "/session", {});
      expect(created.status).toBe(200);
      const prompt = { prompt: [{ type: "text", text: "@spawn stubborn\n@spawn orphan\n@spawn detached\n@hang" }] };
      expect((await jsonRequest(d.ready.url, "POST", `/session/${created.body.sessionId}/prompt`, prompt)).status).toBe(202);
      const wire = await until(async () => {
        const entries = await readWireLog(wirePath);
        return entries.filter((e) => e.event === "spawned").length === 3 ? entries : null;
      }, 10_000, "the agent's tools");
      const family = [wire.find((e) => e.event === "start")!.pid, ...wire.filter((e) => e.event === "spawned").map((e) => e.child as number)];
      for (const pid of family) expect(pidAlive(pid)).toBe(true);

      watched.kill("SIGKILL");
      const exitCode = await Promise.race([d.proc.exited, Bun.sleep(PARENT_EXIT_BOUND_MS).then(() => "still running" as const)]);
      expect(exitCode).toBe(0);
      await expectPidsGone(family, 1000, "the agent and its tools");
    } finally {
      watched.kill("SIGKILL");
      await watched.exited;
    }
  });
});

describe.concurrent("stderr is the logger's only", () => {
  test("--log-format json: the SDK's note about a response to an unknown (agent-chosen, hostile) id is a JSON log line, redacted, with no control bytes", async () => {
    await using dir = tempDir("svc-console-");
    const secret = `sk-console-${crypto.randomUUID()}`;
    const entry = join(dir.path, "agent.js");
    writeFileSync(
      entry,
      [
        `const w = (o) => process.stdout.write(JSON.stringify(o) + "\\n");`,
        `require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => { const m = JSON.parse(l);`,
        `  if (m.method === "initialize") {`,
        `    w({ jsonrpc: "2.0", id: "zz\\n2026-11-23T00:00:00.000Z INFO forged log line key=" + process.env.OPENAI_API_KEY + " \\u001b]0;TITLE\\u0007\\u001b[31mRED", result: {} });`,
        `    w({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });`,
        `  } else if (m.id !== undefined) w({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "nope" } });`,
        `});`,
      ].join("\n"),
    );
    const { workspace, env } = setUp(dir.path, { SVC_CLI_ENTRY: entry, OPENAI_API_KEY: secret });
    await using d = await spawnReady(["--workspace", workspace, "--log-format", "json"], { env });
    await jsonRequest(d.ready.url, "POST", "/session", {});
    await until(() => d.stderr().includes("console output"), 10_000, "the SDK's console line in the log");
    expect(await d.terminate()).toBe(0);
    const lines = d.stderr().split("\n").filter(Boolean);
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(/[\u0000-\u001f\u007f]/.test(line)).toBe(false);
    }
    expect(d.stderr()).not.toContain(secret);
    expect(lines.map((l) => JSON.parse(l)).find((r) => r.msg === "console output")).toMatchObject({ level: "warn", console: "error", text: expect.stringContaining("[redacted]") });
  });
});
