/**
 * The fake agent fixture's process-level behaviour, one child per test: the qwen-code surface,
 * crash, initialize scripting, signals and stdin EOF, the env event, and deliberately bad stdout.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { requestError, startFakeAgent } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

describe("fake agent as qwen-code", () => {
  test("answers the qwen extension methods and refuses standard session/close", async () => {
    await using dir = tempDir("fake-agent-");
    await using fake = startFakeAgent({ cwd: dir.path, env: { FAKE_AGENT_NAME: "qwen-code", FAKE_AGENT_VERSION: "0.24.4" } });
    const init = await fake.initialize();
    expect(init.agentInfo).toMatchObject({ name: "qwen-code", version: "0.24.4" });
    expect(init.agentCapabilities?.sessionCapabilities).not.toHaveProperty("close");

    expect(await fake.agent.request("qwen/status/channel/ping", { v: 1, nonce: 7 })).toEqual({ v: 1, nonce: 7 });
    expect(await fake.agent.request("qwen/status/workspace/mcp", { cwd: dir.path })).toMatchObject({ workspaceCwd: dir.path, discoveryState: "completed" });
    expect(await fake.agent.request("qwen/control/workspace/mcp/initialize", { cwd: dir.path })).toEqual({ accepted: true });

    const { sessionId } = await fake.newSession(dir.path);
    expect(await fake.agent.request("qwen/status/session/context", { sessionId })).toMatchObject({
      sessionId,
      state: { models: { currentModelId: "fake-model-a" }, modes: { currentModeId: "default" } },
    });
    expect(await fake.agent.request("qwen/control/session/approval_mode", { sessionId, mode: "plan" })).toEqual({ previous: "default", current: "plan" });

    const running = fake.prompt(sessionId, "@say busy\n@hang");
    await until(() => fake.agentText(sessionId) === "busy");
    expect(await fake.agent.request("craft/cancelPendingPrompt", { sessionId })).toEqual({ cancelled: true });
    expect((await running).stopReason).toBe("cancelled");
    expect(await fake.agent.request("craft/cancelPendingPrompt", { sessionId })).toEqual({ cancelled: false });

    expect((await requestError(fake.agent.request("session/close", { sessionId }))).code).toBe(-32601);
    expect(await fake.agent.request("qwen/control/session/close", { sessionId, drainTimeoutMs: 8000 })).toEqual({ sessionId, closed: true });
    expect((await requestError(fake.prompt(sessionId, "hello"))).code).toBe(-32002);
  });

  test("bulk load replay comes back in the result instead of as updates", async () => {
    await using dir = tempDir("fake-agent-");
    await using fake = startFakeAgent({ cwd: dir.path, env: { FAKE_AGENT_NAME: "qwen-code" } });
    await fake.initialize();
    const loaded = await fake.agent.request("session/load", {
      sessionId: "old",
      cwd: dir.path,
      mcpServers: [],
      _meta: { "qwen.session.loadReplayMode": "bulk" },
    });
    const replay = loaded._meta?.["qwen.session.loadReplay"] as { v: number; updates: acp.SessionUpdate[] };
    expect(replay.updates.map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk"]);
    await until(() => fake.updatesOf("old").length > 0);
    expect(fake.updatesOf("old").map((u) => u.sessionUpdate)).toEqual(["available_commands_update"]);
  });
});

describe("fake agent process behaviour", () => {
  test("@crash exits with the given code after flushing the updates before it", async () => {
    await using dir = tempDir("fake-agent-");
    const logPath = join(dir.path, "wire.jsonl");
    await using fake = startFakeAgent({ cwd: dir.path, env: { FAKE_AGENT_LOG: logPath } });
    await fake.initialize();
    const { sessionId } = await fake.newSession(dir.path);
    const turn = fake.prompt(sessionId, "@stream 2\n@crash 7\n@say never");
    expect(await fake.proc.exited).toBe(7);
    await turn.catch(() => {});
    expect(await fake.waitForText(sessionId, 20)).toBe("chunk 1/2\nchunk 2/2\n");
    expect((await readWireLog(logPath)).slice(-2)).toMatchObject([
      { event: "crash", code: 7 },
      { event: "exit", code: 7 },
    ]);
  });

  test("FAKE_AGENT_INIT_HANG never answers initialize (the caller times out)", async () => {
    await using dir = tempDir("fake-agent-");
    const logPath = join(dir.path, "wire.jsonl");
    await using fake = startFakeAgent({ env: { FAKE_AGENT_INIT_HANG: "1", FAKE_AGENT_LOG: logPath } });
    const answer = fake.initialize().then(() => "answered");
    await until(async () => (await readWireLog(logPath)).some((l) => l.method === "initialize"));
    expect(await Promise.race([answer, Bun.sleep(300).then(() => "timed out")])).toBe("timed out");
    expect(fake.proc.exitCode).toBeNull();
  });

  test("FAKE_AGENT_INIT_DELAY_MS delays and FAKE_AGENT_INIT_ERROR fails initialize", async () => {
    await using slow = startFakeAgent({ env: { FAKE_AGENT_INIT_DELAY_MS: "250" } });
    const started = performance.now();
    await slow.initialize();
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);

    await using failing = startFakeAgent({ env: { FAKE_AGENT_INIT_ERROR: "no credentials" } });
    expect(await requestError(failing.initialize())).toMatchObject({ code: -32603, message: "no credentials" });
  });

  test("by default exits 0 on SIGTERM and on stdin EOF", async () => {
    await using dir = tempDir("fake-agent-");
    const logPath = join(dir.path, "wire.jsonl");
    await using terminated = startFakeAgent({ env: { FAKE_AGENT_LOG: logPath } });
    await terminated.initialize();
    terminated.proc.kill("SIGTERM");
    expect(await terminated.proc.exited).toBe(0);
    expect((await readWireLog(logPath)).slice(-2)).toMatchObject([
      { event: "signal", signal: "SIGTERM" },
      { event: "exit", code: 0 },
    ]);

    await using closed = startFakeAgent();
    await closed.initialize();
    await closed.proc.stdin.end();
    expect(await closed.proc.exited).toBe(0);
  });

  test("FAKE_AGENT_IGNORE_SIGTERM survives SIGTERM and stdin EOF; SIGKILL stops it", async () => {
    await using dir = tempDir("fake-agent-");
    const logPath = join(dir.path, "wire.jsonl");
    await using fake = startFakeAgent({ env: { FAKE_AGENT_IGNORE_SIGTERM: "1", FAKE_AGENT_LOG: logPath } });
    await fake.initialize();
    const signals = async () => (await readWireLog(logPath)).filter((l) => l.event === "signal").length;

    fake.proc.kill("SIGTERM");
    await until(async () => (await signals()) === 1);
    // Still serving after handling SIGTERM.
    expect((await fake.newSession(dir.path)).sessionId).toBeString();

    await fake.proc.stdin.end();
    await until(async () => (await readWireLog(logPath)).some((l) => l.event === "stdin_closed"));
    // Still alive after EOF: it handles another SIGTERM.
    fake.proc.kill("SIGTERM");
    await until(async () => (await signals()) === 2);
    expect(fake.proc.exitCode).toBeNull();

    fake.proc.kill("SIGKILL");
    await fake.proc.exited;
    expect(fake.proc.signalCode).toBe("SIGKILL");
  });

  test("the env event says whether SVC_SERVER_TOKEN leaked and what QWEN_CODE_NO_RELAUNCH is", async () => {
    await using dir = tempDir("fake-agent-");
    const logPath = join(dir.path, "wire.jsonl");
    await using fake = startFakeAgent({ env: { FAKE_AGENT_LOG: logPath, SVC_SERVER_TOKEN: "secret", QWEN_CODE_NO_RELAUNCH: "true" } });
    await fake.initialize();
    const env = (await readWireLog(logPath)).find((l) => l.event === "env");
    expect(env).toMatchObject({ hasServerToken: true, qwenNoRelaunch: "true" });
    expect(env?.svcVars).toContain("SVC_SERVER_TOKEN");
    expect(JSON.stringify(env)).not.toContain("secret");
  });

  test("FAKE_AGENT_STRICT_SESSIONS refuses to load or resume unknown ids", async () => {
    await using fake = startFakeAgent({ env: { FAKE_AGENT_STRICT_SESSIONS: "1" } });
    await fake.initialize();
    const error = await requestError(fake.agent.request("session/load", { sessionId: "gone", cwd: "/", mcpServers: [] }));
    expect(error).toMatchObject({ code: -32002, message: "Resource not found: session:gone" });
    expect((await requestError(fake.agent.request("session/resume", { sessionId: "gone", cwd: "/" }))).code).toBe(-32002);
  });

  test("FAKE_AGENT_MODELS sets the model list", async () => {
    await using fake = startFakeAgent({ env: { FAKE_AGENT_MODELS: "m1, m2,m3" } });
    await fake.initialize();
    const session = await fake.newSession("/");
    expect((session as unknown as { models: { currentModelId: string; availableModels: Array<{ modelId: string }> } }).models).toMatchObject({
      currentModelId: "m1",
      availableModels: [{ modelId: "m1" }, { modelId: "m2" }, { modelId: "m3" }],
    });
  });
});

describe("fake agent misbehaving on stdout and stderr", () => {
  test("FAKE_AGENT_FLOOD_STDOUT writes that many junk bytes after initialize, then keeps working", async () => {
    await using fake = startFakeAgent({ env: { FAKE_AGENT_FLOOD_STDOUT: "200000" } });
    const init = await fake.initialize();
    const initBytes = JSON.stringify({ jsonrpc: "2.0", id: 0, result: init }).length + 1;
    await until(() => fake.stdoutBytes() >= initBytes + 200_000);
    const session = await fake.newSession("/");
    expect(session.sessionId).toBeString();
    const lines = fake.stdoutHead().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    expect(JSON.parse(lines[1]!)).toMatchObject({ junk: 0 });
    expect(lines.slice(1, 60).every((line) => line.startsWith('{"junk":'))).toBe(true);
  });

  test("FAKE_AGENT_HUGE_LINE_MB writes one valid notification of that size whose newline comes last", async () => {
    await using fake = startFakeAgent({ env: { FAKE_AGENT_HUGE_LINE_MB: "2" } });
    await fake.initialize();
    const huge = await until(() => fake.notifications.find((n) => n.method === "_fake/huge"));
    const line = JSON.stringify({ jsonrpc: "2.0", method: "_fake/huge", params: huge.params }) + "\n";
    expect(line.length).toBe(2 * 1024 * 1024);
    expect((await fake.newSession("/")).sessionId).toBeString();
  });

  test("FAKE_AGENT_GARBAGE puts a non-JSON line before every message, never inside one", async () => {
    await using fake = startFakeAgent({ env: { FAKE_AGENT_GARBAGE: "1" } });
    await fake.initialize();
    const { sessionId } = await fake.newSession("/");
    expect((await fake.prompt(sessionId, "still works")).stopReason).toBe("end_turn");
    const lines = fake.stdoutHead().split("\n").filter(Boolean);
    const messages = lines.filter((line) => line.startsWith('{"jsonrpc"'));
    for (const message of messages) expect(() => JSON.parse(message)).not.toThrow();
    expect(messages.length).toBeGreaterThanOrEqual(4);
    expect(lines.length).toBe(messages.length * 2);
    for (let i = 0; i < lines.length; i += 2) expect(() => JSON.parse(lines[i]!)).toThrow();
  });

  test("FAKE_AGENT_STDERR_LINES writes that many lines to stderr at startup", async () => {
    await using fake = startFakeAgent({ env: { FAKE_AGENT_STDERR_LINES: "3" } });
    await until(() => fake.stderr().split("\n").length > 3);
    expect(fake.stderr()).toBe("fake-agent stderr line 1/3\nfake-agent stderr line 2/3\nfake-agent stderr line 3/3\n");
  });
});
