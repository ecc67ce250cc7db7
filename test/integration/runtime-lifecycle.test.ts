/**
 * The workspace's agent child over its life: start failures (initialize timeout or error, a child
 * that dies first, no entry to run), the child dying under live sessions (crash or kill), the
 * bounded stop when the last session goes or the daemon stops (with a child that ignores SIGTERM
 * and stdin EOF), and what the child is given (argv, cwd, environment).
 */
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "../../src/config/config.ts";
import { createDaemon } from "../../src/daemon.ts";
import { Logger } from "../../src/logging/logger.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { expectPidsGone, pidAlive, pidGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const prompt = (text: string) => ({ prompt: [{ type: "text", text }] });

describe("child death under live sessions", () => {
  test("a crash tears down every session on the child; the next create spawns a fresh child", async () => {
    await using d = await fakeAgentDaemon();
    const a = await d.createSession({ sessionScope: "thread" });
    const b = await d.createSession({ sessionScope: "thread" });
    const [first] = await d.waitForAgents(1);
    await using eventsA = await d.events(a.sessionId);
    await using eventsB = await d.events(b.sessionId);

    expect((await d.json("POST", `/session/${a.sessionId}/prompt`, prompt("@crash 3"))).status).toBe(202);

    for (const [events, sessionId] of [[eventsA, a.sessionId], [eventsB, b.sessionId]] as const) {
      const died = await events.first("session_died");
      expect(died.data).toMatchObject({ sessionId, reason: "channel_closed", exitCode: 3, signalCode: null });
      await events.waitForEnd();
      expect((await d.json("GET", `/session/${sessionId}/status`)).status).toBe(404);
    }
    expect(pidGone(first!)).toBe(true);
    expect((await d.json("GET", "/health?deep")).body).toMatchObject({ status: "ok", sessions: 0, channelAlive: false });

    const fresh = await d.createSession();
    expect(fresh.attached).toBe(false);
    const pids = await d.waitForAgents(2);
    expect(pids[1]).not.toBe(first);
    expect(pidAlive(pids[1]!)).toBe(true);
  });

  test("a child killed from outside ends its sessions with the signal; the default session is then created anew", async () => {
    await using d = await fakeAgentDaemon();
    const main = await d.createSession();
    const [pid] = await d.waitForAgents(1);
    await using events = await d.events(main.sessionId);

    process.kill(pid!, "SIGKILL");
    expect((await events.first("session_died")).data).toMatchObject({ sessionId: main.sessionId, exitCode: null, signalCode: "SIGKILL" });
    await until(async () => (await d.json("GET", `/session/${main.sessionId}/status`)).status === 404);

    const again = await d.createSession();
    expect(again).toMatchObject({ attached: false });
    expect(again.sessionId).not.toBe(main.sessionId);
    expect((await d.waitForAgents(2))[1]).not.toBe(pid);
  });
});

describe("start failures", () => {
  test("an agent that never answers initialize: every waiting create gets 504 init_timeout and the child is killed", async () => {
    await using d = await fakeAgentDaemon(["--initialize-timeout-ms", "500"], { env: { FAKE_AGENT_INIT_HANG: "1" } });
    const started = performance.now();
    const replies = await Promise.all([d.json("POST", "/session", {}), d.json("POST", "/session", {}), d.json("POST", "/session", { sessionScope: "thread" })]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    for (const reply of replies) {
      expect(reply.status).toBe(504);
      expect(reply.body).toMatchObject({ code: "init_timeout", errorKind: "init_timeout", timeoutMs: 500, retryable: true });
      expect(reply.headers.get("retry-after")).toBe("5");
    }
    // One child was tried for all three, and it is gone.
    const pids = await d.waitForAgents(1);
    await expectPidsGone(pids, 3000);
    expect((await d.wire()).filter((e) => e.method === "initialize")).toHaveLength(1);
    expect((await d.json("GET", "/health?deep")).body).toMatchObject({ status: "ok", sessions: 0, channelAlive: false });
  });

  test("an initialize error is a failed start (503 agent_start_failed, not retryable) with the agent's message and JSON-RPC code, and the child is stopped", async () => {
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_INIT_ERROR: "no credentials" } });
    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "initialize_error", agentCode: -32603, retryable: false });
    expect(JSON.stringify(reply.body)).toContain("no credentials");
    await expectPidsGone(await d.waitForAgents(1), 3000);
  });

  test("a child that exits before initialize fails the create with 503 agent_start_failed and its exit code; the daemon stays up", async () => {
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "exits.ts");
    writeFileSync(entry, `require("node:fs").appendFileSync(${JSON.stringify(join(dir.path, "pids"))}, process.pid + "\\n");\nprocess.exit(7);\n`);
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry } });
    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", exitCode: 7, signalCode: null, retryable: false });
    const pids = (await Bun.file(join(dir.path, "pids")).text()).trim().split("\n").map(Number);
    await expectPidsGone(pids, 3000);
    expect((await d.json("GET", "/health")).status).toBe(200);
  });

  test("with no SVC_CLI_ENTRY and no script of its own, a create is 503 cli_entry_missing and nothing is spawned", async () => {
    await using ws = tempDir("svc-ws-");
    const config = resolveConfig({
      args: ["--port", "0", "--workspace", ws.path, "--log-level", "error"],
      env: { SVC_HOME: process.env.SVC_HOME },
      cwd: ws.path,
      version: "0.0.0-test",
      selfEntry: undefined,
    });
    expect(config.agent.cliEntry).toBeNull();
    const daemon = createDaemon(config, { logger: new Logger("error", "text", { write: () => {} }) });
    try {
      const reply = await jsonRequest(daemon.url, "POST", "/session", {});
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ code: "cli_entry_missing", errorKind: "missing_binary", error: expect.stringContaining("SVC_CLI_ENTRY"), retryable: false });
      expect((await jsonRequest(daemon.url, "GET", "/health?deep")).body).toMatchObject({ sessions: 0, channelAlive: false });
    } finally {
      await daemon.stop(1000);
    }
  });
  test("run from source, a daemon whose own script is gone answers 503 cli_entry_missing naming it, and recovers once it is back", async () => {
    await using ws = tempDir("svc-ws-");
    await using dir = tempDir("svc-self-");
    const self = join(dir.path, "main.ts");
    writeFileSync(self, `import ${JSON.stringify(FAKE_AGENT_ENTRY)};\n`);
    const config = resolveConfig({ args: ["--port", "0", "--workspace", ws.path, "--log-level", "error"], env: { SVC_HOME: process.env.SVC_HOME }, cwd: ws.path, version: "0.0.0-test", selfEntry: self });
    expect(config.agent.cliEntry).toEqual({ path: self, source: "argv" });
    const daemon = createDaemon(config, { logger: new Logger("error", "text", { write: () => {} }) });
    try {
      rmSync(self);
      const reply = await jsonRequest(daemon.url, "POST", "/session", {});
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ code: "cli_entry_missing", reason: "not_found", source: "process.argv[1]", retryable: false });
      expect(reply.body.error).toContain("daemon's own entry script");
      expect(reply.body.hint).toContain("SVC_CLI_ENTRY");
      writeFileSync(self, `import ${JSON.stringify(FAKE_AGENT_ENTRY)};\n`);
      expect((await jsonRequest(daemon.url, "POST", "/session", {})).status).toBe(200);
    } finally {
      await daemon.stop(3000);
    }
  });
});

describe("what the child is given", () => {
  test("argv --acp, the workspace as cwd, QWEN_CODE_NO_RELAUNCH=true, and never the daemon's token", async () => {
    await using d = await fakeAgentDaemon([], { env: { SVC_SERVER_TOKEN: "daemon-secret", FAKE_AGENT_STDERR_LINES: "2" } });
    const auth = { Authorization: "Bearer daemon-secret" };
    expect((await d.json("POST", "/session", {})).status).toBe(401);
    const created = await d.json("POST", "/session", {}, auth);
    expect(created.status).toBe(200);

    const wire = await d.wire();
    expect(wire.find((e) => e.event === "start")).toMatchObject({ cwd: d.workspace, argv: ["--acp"] });
    const env = wire.find((e) => e.event === "env")!;
    expect(env.hasServerToken).toBe(false);
    expect(env.qwenNoRelaunch).toBe("true");
    expect(env.svcVars).not.toContain("SVC_SERVER_TOKEN");
    expect(env.svcVars).not.toContain("SVC_CLI_ENTRY");
    // The child's stderr goes to the daemon's log, tagged with its pid.
    const pid = wire[0]!.pid;
    await until(() => d.logs.some((l) => l.includes("fake-agent stderr line 2/2") && l.includes(`pid=${pid}`)));
  });
});

describe("bounded stop of a child that ignores SIGTERM and stdin EOF", () => {
  /**
   * Waits until the agent has sent each session's command list, its last write after session/new:
   * a child still writing when the daemon stops reading its stdout dies of EPIPE, which would end
   * it before the stop sequence could be observed.
   */
  const quiet = (d: FakeAgentDaemon, ...sessionIds: string[]) =>
    until(async () => {
      for (const id of sessionIds) if ((await d.json("GET", `/session/${id}/supported-commands`)).body.availableCommands?.length !== 2) return false;
      return true;
    });

  // Each of these waits out the stdin and SIGTERM graces (~3 s), so they run side by side.
  test.concurrent("closing its last session escalates to SIGKILL", async () => {
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_IGNORE_SIGTERM: "1" } });
    const { sessionId } = await d.createSession();
    const [pid] = await d.waitForAgents(1);
    await quiet(d, sessionId);
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);

    await expectPidsGone([pid!], 6000);
    const events = (await d.wire()).filter((e) => e.event === "stdin_closed" || e.event === "signal").map((e) => e.event);
    // It saw stdin close, then SIGTERM, and survived both: only SIGKILL (unlogged) ended it.
    expect(events).toEqual(["stdin_closed", "signal"]);
    expect((await d.wire()).some((e) => e.event === "exit")).toBe(false);
  }, 15_000);

  test.concurrent("stopping the daemon escalates to SIGKILL before stop() resolves", async () => {
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_IGNORE_SIGTERM: "1" } });
    const a = await d.createSession({ sessionScope: "thread" });
    const b = await d.createSession({ sessionScope: "thread" });
    const [pid] = await d.waitForAgents(1);
    await quiet(d, a.sessionId, b.sessionId);
    await d.daemon.stop(10_000);
    expect(pidGone(pid!)).toBe(true);
    expect((await d.wire()).filter((e) => e.event === "signal")).toHaveLength(1);
  }, 15_000);
});
