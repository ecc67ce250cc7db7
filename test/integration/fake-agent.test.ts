/**
 * The fake agent fixture driven through a real SDK client over its stdio, one shared child:
 * directives, session methods and the wire log. Process-level behaviour (env scripting, signals,
 * bad stdout, the qwen-code surface) is in `fake-agent-process.test.ts`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestError, startFakeAgent, type FakeAgentHandle } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

describe("fake agent, one shared child", () => {
  let dir: TempDir;
  let fake: FakeAgentHandle;
  let logPath: string;
  let init: acp.InitializeResponse;

  beforeAll(async () => {
    dir = tempDir("fake-agent-");
    logPath = join(dir.path, "wire.jsonl");
    fake = startFakeAgent({ cwd: dir.path, env: { FAKE_AGENT_LOG: logPath } });
    init = await fake.initialize();
  });
  afterAll(async () => {
    await fake[Symbol.asyncDispose]();
    await dir[Symbol.asyncDispose]();
  });

  test("initialize echoes the protocol version and reports identity and capabilities", () => {
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toMatchObject({ name: "fake-agent", version: "0.0.0-fake" });
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ resume: {}, close: {} });
  });

  test("session/new reports models, modes and config options, then available commands", async () => {
    const session = await fake.newSession(dir.path);
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((session as unknown as { models: unknown }).models).toEqual({
      currentModelId: "fake-model-a",
      availableModels: [
        { modelId: "fake-model-a", name: "fake-model-a", description: "fake model fake-model-a" },
        { modelId: "fake-model-b", name: "fake-model-b", description: "fake model fake-model-b" },
      ],
    });
    expect(session.modes?.currentModeId).toBe("default");
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["default", "plan", "yolo"]);
    expect(session.configOptions?.map((o) => [o.id, o.type, o.currentValue])).toEqual([
      ["mode", "select", "default"],
      ["model", "select", "fake-model-a"],
    ]);
    const commands = await until(() => fake.updatesOf(session.sessionId).find((u) => u.sessionUpdate === "available_commands_update"));
    expect(commands).toMatchObject({ availableCommands: [{ name: "help" }, { name: "compress" }] });
  });

  test("session/new takes a requested id from _meta, once", async () => {
    const request: acp.NewSessionRequest = { cwd: dir.path, mcpServers: [], _meta: { "qwen-code/sessionId": "chosen-id" } };
    expect((await fake.agent.request("session/new", request)).sessionId).toBe("chosen-id");
    expect((await requestError(fake.agent.request("session/new", request))).code).toBe(-32602);
  });

  test("a prompt without directives is echoed, then ends the turn", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    const text = "hello there\nsecond line";
    expect((await fake.prompt(sessionId, text)).stopReason).toBe("end_turn");
    expect(await fake.waitForText(sessionId, text.length)).toBe(text);
  });

  test("@stream sends N chunks in order, @say and @echo compose in line order", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    const response = await fake.prompt(sessionId, "@say start\n@stream 5 5\nplain words\n@echo");
    expect(response.stopReason).toBe("end_turn");
    const expected = "startchunk 1/5\nchunk 2/5\nchunk 3/5\nchunk 4/5\nchunk 5/5\nplain words";
    expect(await fake.waitForText(sessionId, expected.length)).toBe(expected);
  });

  test("@tool emits tool_call then its updates to completed", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    await fake.prompt(sessionId, "@tool Read the file");
    const toolUpdates = () => fake.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
    await until(() => toolUpdates().length >= 3);
    const tool = toolUpdates();
    expect(tool.map((u) => [u.sessionUpdate, "status" in u ? u.status : undefined])).toEqual([
      ["tool_call", "pending"],
      ["tool_call_update", "in_progress"],
      ["tool_call_update", "completed"],
    ]);
    expect(tool[0]).toMatchObject({ title: "Read the file" });
  });

  test("@permission asks the client and reports the selected option or a cancellation", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    fake.onPermission = () => ({ outcome: "selected", optionId: "proceed_always" });
    await fake.prompt(sessionId, "@permission Write hello.txt\n@say , after");
    fake.onPermission = () => ({ outcome: "cancelled" });
    await fake.prompt(sessionId, "@permission");
    const expected = "permission: selected proceed_always, afterpermission: cancelled";
    expect(await fake.waitForText(sessionId, expected.length)).toBe(expected);
    const request = fake.permissionRequests.find((r) => r.sessionId === sessionId)!;
    expect(request.toolCall.title).toBe("Write hello.txt");
    expect(request.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["proceed_always", "allow_always"],
      ["proceed_once", "allow_once"],
      ["cancel", "reject_once"],
    ]);
  });

  test("session/cancel ends a hanging prompt with cancelled, and the log records the cancel", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    const running = fake.prompt(sessionId, "@say working\n@hang\n@say never");
    await until(() => fake.agentText(sessionId) === "working");
    await fake.agent.notify("session/cancel", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    // Updates are ordered on the wire: a "never" sent before the next turn would show up before "|end".
    await fake.prompt(sessionId, "@say |end");
    expect(await fake.waitForText(sessionId, 11)).toBe("working|end");
    const log = await readWireLog(logPath);
    expect(log.some((l) => l.method === "session/cancel" && (l.params as { sessionId: string }).sessionId === sessionId)).toBe(true);
  });

  test("cancelling during @sleep or while a permission request is open also ends the turn", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    const sleeping = fake.prompt(sessionId, "@say sleeping\n@sleep 60000\n@say never");
    await until(() => fake.agentText(sessionId) === "sleeping");
    await fake.agent.notify("session/cancel", { sessionId });
    expect((await sleeping).stopReason).toBe("cancelled");

    // The client holds the permission request open until after the cancel; the late answer is dropped.
    let answer = (_: acp.RequestPermissionOutcome) => {};
    fake.onPermission = () => new Promise((resolve) => (answer = resolve));
    const waiting = fake.prompt(sessionId, "@permission\n@say never");
    await until(() => fake.permissionRequests.some((r) => r.sessionId === sessionId));
    await fake.agent.notify("session/cancel", { sessionId });
    expect((await waiting).stopReason).toBe("cancelled");
    answer({ outcome: "selected", optionId: "proceed_once" });
    fake.onPermission = () => ({ outcome: "selected", optionId: "proceed_once" });
    await fake.prompt(sessionId, "@say |end");
    expect(await fake.waitForText(sessionId, 12)).toBe("sleeping|end");
  });

  test("@error fails the prompt with the code, message and details; @stop overrides the stop reason", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    const error = await requestError(fake.prompt(sessionId, "@say partial\n@error -32603 Internal error :: 400 scripted failure\n@say never"));
    expect(error).toMatchObject({ code: -32603, message: "Internal error", data: { details: "400 scripted failure" } });
    expect(await requestError(fake.prompt(sessionId, "@error 42"))).toMatchObject({ code: 42, message: "fake agent error" });
    expect((await fake.prompt(sessionId, "@stop refusal\n@say still runs")).stopReason).toBe("refusal");
    expect((await fake.prompt(sessionId, "@stop max_tokens")).stopReason).toBe("max_tokens");
    expect(await fake.waitForText(sessionId, 17)).toBe("partialstill runs");
  });

  test("unknown or malformed directives fail with -32602; @-words that are not directives are text", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    expect((await requestError(fake.prompt(sessionId, "@bogus"))).code).toBe(-32602);
    expect((await requestError(fake.prompt(sessionId, "@stream lots"))).code).toBe(-32602);
    expect((await requestError(fake.prompt(sessionId, "@stop whenever"))).code).toBe(-32602);
    await fake.prompt(sessionId, "@file.ts please");
    expect(await fake.waitForText(sessionId, 15)).toBe("@file.ts please");
  });

  test("mode, model and config option switches; an unknown model is a JSON-RPC error", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    await fake.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await fake.agent.request("session/set_model", { sessionId, modelId: "fake-model-b" });
    const unknown = await requestError(fake.agent.request("session/set_model", { sessionId, modelId: "nope" }));
    expect(unknown).toMatchObject({ code: -32603, data: { details: "Model 'nope' not found" } });
    const { configOptions } = await fake.agent.request("session/set_config_option", { sessionId, configId: "mode", value: "yolo" });
    expect(configOptions.map((o) => [o.id, o.currentValue])).toEqual([
      ["mode", "yolo"],
      ["model", "fake-model-b"],
    ]);
    expect((await requestError(fake.agent.request("session/set_config_option", { sessionId, configId: "model", value: "nope" }))).code).toBe(-32603);
    expect((await requestError(fake.agent.request("session/set_mode", { sessionId, modeId: "nope" }))).code).toBe(-32602);
  });

  test("session/load replays a user and an agent message for known and unknown ids; resume does not", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    await until(() => fake.updatesOf(sessionId).length === 1);
    for (const id of [sessionId, "never-seen-before"]) {
      const before = fake.updatesOf(id).length;
      const loaded = await fake.agent.request("session/load", { sessionId: id, cwd: dir.path, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe("default");
      await until(() => fake.updatesOf(id).length >= before + 3);
      expect(fake.updatesOf(id).slice(before).map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk", "available_commands_update"]);
    }
    await fake.agent.request("session/resume", { sessionId: "resumed-id", cwd: dir.path });
    await until(() => fake.updatesOf("resumed-id").length > 0);
    expect(fake.updatesOf("resumed-id").map((u) => u.sessionUpdate)).toEqual(["available_commands_update"]);
    expect((await fake.prompt("never-seen-before", "after load")).stopReason).toBe("end_turn");
  });

  test("session/close ends the running turn and forgets the session", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    const running = fake.prompt(sessionId, "@say busy\n@hang");
    await until(() => fake.agentText(sessionId) === "busy");
    await fake.agent.request("session/close", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    expect((await requestError(fake.prompt(sessionId, "hello"))).code).toBe(-32002);
  });

  test("@read and @write go through the client's fs methods", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    writeFileSync(join(dir.path, "in.txt"), "from disk");
    await fake.prompt(sessionId, "@read in.txt\n@write out.txt written by the agent\n@read missing.txt");
    expect(readFileSync(join(dir.path, "out.txt"), "utf8")).toBe("written by the agent");
    const expected = `read: from diskwrote: ${join(dir.path, "out.txt")}read failed: `;
    expect(await fake.waitForText(sessionId, expected.length + 1)).toStartWith(expected);
  });

  test("@notify sends extension notifications and @update raw session updates", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    await fake.prompt(sessionId, `@notify _fake/ping\n@notify qwen/notify/session/title-update {"v":1,"title":"T"}\n@update {"sessionUpdate":"session_info_update","title":"Hi"}`);
    await until(() => fake.notifications.length >= 2);
    expect(fake.notifications).toEqual([
      { method: "_fake/ping", params: { sessionId } },
      { method: "qwen/notify/session/title-update", params: { v: 1, title: "T" } },
    ]);
    const info = await until(() => fake.updatesOf(sessionId).find((u) => u.sessionUpdate === "session_info_update"));
    expect(info).toMatchObject({ sessionUpdate: "session_info_update", title: "Hi" });
  });

  test("qwen-only methods are -32601 for other agent names", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    expect((await requestError(fake.agent.request("qwen/control/session/close", { sessionId }))).code).toBe(-32601);
    expect((await requestError(fake.agent.request("craft/cancelPendingPrompt", { sessionId }))).code).toBe(-32601);
  });

  test("the wire log records the start, the environment and every inbound message with raw params", async () => {
    const { sessionId } = await fake.newSession(dir.path);
    await fake.agent.notify("session/cancel", { sessionId });
    expect((await requestError(fake.agent.request("_fake/unknown", { extra: [1, 2] }))).code).toBe(-32601);
    const log = await readWireLog(logPath);
    expect(log[0]).toMatchObject({ event: "start", pid: fake.proc.pid, cwd: dir.path, argv: ["--acp"] });
    expect(log[1]).toMatchObject({ event: "env", hasServerToken: false });
    expect(log[1]).not.toHaveProperty("qwenNoRelaunch");
    expect(log[2]).toMatchObject({
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } },
    });
    expect(log.slice(-3)).toEqual([
      { pid: fake.proc.pid, method: "session/new", params: { cwd: dir.path, mcpServers: [] } },
      { pid: fake.proc.pid, method: "session/cancel", params: { sessionId } },
      { pid: fake.proc.pid, method: "_fake/unknown", params: { extra: [1, 2] } },
    ]);
  });
});

