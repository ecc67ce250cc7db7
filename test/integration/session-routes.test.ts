/**
 * The per-session routes around a live session: close, heartbeat, metadata, model switch, status,
 * context, supported commands, the workspace session list, virtual `subagent.` ids, and the
 * daemon-wide views (`/health?deep`, `/daemon/status`) — none of which may start an agent child.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { pidGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/**
 * Tests that only look at their own thread session share one daemon and child (a child costs a few
 * hundred ms to start); tests about the child's lifecycle or daemon-wide counts get their own.
 */
let shared: FakeAgentDaemon;
beforeAll(async () => {
  shared = await fakeAgentDaemon();
});
afterAll(async () => {
  await shared?.[Symbol.asyncDispose]();
});

/** The shared daemon, for one test; the thread session it made is the test's own. */
async function sharedSession() {
  const created = await shared.createSession({ sessionScope: "thread" });
  return { d: shared, ...created };
}

describe("DELETE /session/:id", () => {
  test("answers 204, ends the stream with session_closed, then 404 for the id everywhere", async () => {
    const { d, sessionId, clientId } = await sharedSession();
    await using events = await d.events(sessionId);

    const closed = await d.json("DELETE", `/session/${sessionId}`, undefined, { "X-Svc-Client-Id": clientId });
    expect(closed.status).toBe(204);
    expect(closed.body).toBeNull();

    const terminal = await events.first("session_closed");
    expect(terminal.data).toMatchObject({ sessionId, reason: "client_close", closedBy: clientId });
    expect(terminal.envelope.originatorClientId).toBe(clientId);
    await events.waitForEnd();

    const again = await d.json("DELETE", `/session/${sessionId}`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "session_not_found", sessionId, error: expect.stringContaining(sessionId) });
    for (const path of ["status", "context", "supported-commands"]) expect((await d.json("GET", `/session/${sessionId}/${path}`)).status).toBe(404);
    expect((await d.json("POST", `/session/${sessionId}/heartbeat`, {})).status).toBe(404);
    await using gone = await d.events(sessionId, {}, { expectOk: false });
    expect(gone.status).toBe(404);
  });

  test("closing the default session lets the next default create start a new one", async () => {
    const d = shared; // the only test on it that uses the default scope
    const first = await d.createSession();
    expect((await d.json("DELETE", `/session/${first.sessionId}`)).status).toBe(204);
    const second = await d.createSession();
    expect(second.attached).toBe(false);
    expect(second.sessionId).not.toBe(first.sessionId);
  });

  test("an unregistered X-Svc-Client-Id cannot close the session", async () => {
    const { d, sessionId } = await sharedSession();
    const reply = await d.json("DELETE", `/session/${sessionId}`, undefined, { "X-Svc-Client-Id": "client_nobody" });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: "invalid_client_id", sessionId, clientId: "client_nobody" });
    expect((await d.json("GET", `/session/${sessionId}/status`)).status).toBe(200);
  });

  test("the generic profile closes the agent session with session/close, and the idle child is stopped", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession();
    const [pid] = await d.waitForAgents(1);
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);

    const wire = await d.wire();
    expect(wire.filter((e) => e.method === "session/close").map((e) => e.params)).toEqual([{ sessionId }]);
    expect(wire.some((e) => e.method === "qwen/control/session/close")).toBe(false);
    // --channel-idle-timeout-ms defaults to 0: the child goes with its last session.
    await until(() => pidGone(pid!), 5000, "the idle child to exit");
    expect((await d.json("GET", "/daemon/status")).body.runtime.channel.live).toBe(false);
  });

});

describe("POST /session/:id/heartbeat", () => {
  test("answers {sessionId, lastSeenAt}, echoing a registered client id", async () => {
    const { d, sessionId, clientId } = await sharedSession();
    const before = Date.now();

    const anonymous = await d.json("POST", `/session/${sessionId}/heartbeat`, {});
    expect(anonymous.status).toBe(200);
    expect(Object.keys(anonymous.body).sort()).toEqual(["lastSeenAt", "sessionId"]);
    expect(anonymous.body.sessionId).toBe(sessionId);
    expect(anonymous.body.lastSeenAt).toBeGreaterThanOrEqual(before);

    // Body ignored, any or none.
    const named = await d.json("POST", `/session/${sessionId}/heartbeat`, undefined, { "X-Svc-Client-Id": clientId });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ sessionId, clientId, lastSeenAt: expect.any(Number) });
    expect(named.body.lastSeenAt).toBeGreaterThanOrEqual(anonymous.body.lastSeenAt);
    expect((await d.json("GET", `/session/${sessionId}/status`)).body.updatedAt).toBe(new Date(named.body.lastSeenAt).toISOString());
  });

  test("an unregistered or malformed client id is 400 invalid_client_id; an unknown session 404", async () => {
    const { d, sessionId } = await sharedSession();
    const stranger = await d.json("POST", `/session/${sessionId}/heartbeat`, {}, { "X-Svc-Client-Id": "client_stranger" });
    expect(stranger.status).toBe(400);
    expect(stranger.body).toMatchObject({ code: "invalid_client_id", sessionId, clientId: "client_stranger" });

    const malformed = await d.json("POST", `/session/${sessionId}/heartbeat`, {}, { "X-Svc-Client-Id": "x".repeat(129) });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("invalid_client_id");

    const unknown = await d.json("POST", "/session/no-such-session/heartbeat", {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "session_not_found", sessionId: "no-such-session" });
  });
});

describe("PATCH /session/:id/metadata", () => {
  test("sets the display name (trimmed, capped at 256) and a PR link, publishing session_metadata_updated", async () => {
    const { d, sessionId, clientId } = await sharedSession();
    await using events = await d.events(sessionId);

    const named = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "  Fix the parser  " }, { "X-Svc-Client-Id": clientId });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ sessionId, displayName: "Fix the parser" });
    const update = await events.first("session_metadata_updated");
    expect(update.data).toMatchObject({ sessionId, displayName: "Fix the parser", titleSource: "manual" });
    expect(update.envelope.originatorClientId).toBe(clientId);

    const long = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "é".repeat(300) });
    expect(long.body.displayName).toBe("é".repeat(256));

    const pr = await d.json("PATCH", `/session/${sessionId}/metadata`, { pr: { number: 12, url: "https://example.test/pr/12", state: "open" } });
    expect(pr.status).toBe(200);
    expect(pr.body.prs).toEqual([{ number: 12, url: "https://example.test/pr/12", state: "open" }]);

    const status = (await d.json("GET", `/session/${sessionId}/status`)).body;
    expect(status).toMatchObject({ displayName: "é".repeat(256), titleSource: "manual", prs: [{ number: 12 }] });
    await until(() => events.frames.filter((f) => f.event === "session_metadata_updated").length === 3);
  });

  test("truncation never splits a surrogate pair", async () => {
    const { d, sessionId } = await sharedSession();
    const name = "a".repeat(255) + "😀tail";
    const reply = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: name });
    expect(reply.status).toBe(200);
    expect(reply.body.displayName).toBe("a".repeat(255));
    const fits = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "a".repeat(254) + "😀tail" });
    expect(fits.body.displayName).toBe("a".repeat(254) + "😀");
  });

  test("names with control, separator or bidi formatting characters, or lone surrogates, are refused and change nothing", async () => {
    const { d, sessionId } = await sharedSession();
    await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "kept" });
    for (const bad of ["nul\u0000", "c1\u0085next", "csi\u009b", "evil\u202etxt.exe", "lri\u2066x\u2069", "lrm\u200e", "alm\u061c", "line\u2028sep", "lone\ud800", "lone\udc00x"]) {
      const reply = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: bad });
      expect({ bad, status: reply.status, code: reply.body.code, field: reply.body.field }).toEqual({ bad, status: 400, code: "invalid_metadata", field: "displayName" });
    }
    expect((await d.json("GET", `/session/${sessionId}/status`)).body.displayName).toBe("kept");
  });

  test("an agent's title is stored without unsafe characters", async () => {
    const { d, sessionId } = await sharedSession();
    await using events = await d.events(sessionId);
    const update = JSON.stringify({ sessionUpdate: "session_info_update", title: "report\u202Egpj.exe\u0085 " + "b".repeat(300) });
    expect((await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@update ${update}` }] })).status).toBe(202);
    await events.waitFor("turn_complete");
    const status = (await d.json("GET", `/session/${sessionId}/status`)).body;
    expect(status).toMatchObject({ titleSource: "agent", displayName: ("reportgpj.exe " + "b".repeat(300)).slice(0, 256) });
  });

  test("an agent cannot mark its own user_message_chunk as the daemon's prompt echo", async () => {
    const { d, sessionId } = await sharedSession();
    await using events = await d.events(sessionId);
    const forged = { sessionUpdate: "user_message_chunk", content: { type: "text", text: "forged" }, _meta: { source: "bridge-echo", kept: 1 } };
    expect((await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@update ${JSON.stringify(forged)}` }] })).status).toBe(202);
    const relayed = await events.waitFor("session_update", (f) => f.data.update.content?.text === "forged");
    expect(relayed.data.update._meta).toEqual({ kept: 1 });
    await events.waitFor("turn_complete");
  });

  test("a body that is not a JSON object is 400 and changes nothing", async () => {
    const { d, sessionId } = await sharedSession();
    for (const body of ["[1,2]", '"str"', "123", "null", "true"]) {
      const res = await d.fetch(`/session/${sessionId}/metadata`, { method: "PATCH", headers: { "Content-Type": "application/json" }, body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(await res.json()).toEqual({ error: "The request body must be a JSON object", code: "invalid_request" });
      const model = await d.fetch(`/session/${sessionId}/model`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      expect({ body, status: model.status }).toEqual({ body, status: 400 });
    }
    expect((await d.json("GET", `/session/${sessionId}/status`)).body.displayName).toBeUndefined();
  });

  test("rejects bad values with 400 invalid_metadata naming the field, and {} changes nothing", async () => {
    const { d, sessionId } = await sharedSession();
    await using events = await d.events(sessionId);
    const cases: [unknown, string][] = [
      [{ displayName: "" }, "displayName"],
      [{ displayName: "   " }, "displayName"],
      [{ displayName: 7 }, "displayName"],
      [{ displayName: "tab\there" }, "displayName"],
      [{ pr: { number: 0, url: "https://example.test/pr/0" } }, "pr"],
      [{ pr: { number: 1, url: "ftp://example.test/pr/1" } }, "pr"],
      [{ pr: { number: 1, url: "https://example.test/" + "x".repeat(2048) } }, "pr"],
      [{ pr: { number: 1, url: "https://example.test/pr/1", state: "draft" } }, "pr"],
    ];
    for (const [body, field] of cases) {
      const reply = await d.json("PATCH", `/session/${sessionId}/metadata`, body);
      expect({ body, status: reply.status, code: reply.body.code, field: reply.body.field }).toEqual({ body, status: 400, code: "invalid_metadata", field });
    }
    const empty = await d.json("PATCH", `/session/${sessionId}/metadata`, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ sessionId });
    expect((await d.json("PATCH", `/session/${sessionId}/metadata`, {}, { "X-Svc-Client-Id": "client_nobody" })).body.code).toBe("invalid_client_id");
    expect((await d.json("PATCH", "/session/nope/metadata", { displayName: "x" })).status).toBe(404);

    // A valid change afterwards is the first and only metadata event.
    await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "ok" });
    await events.first("session_metadata_updated");
    expect(events.frames.filter((f) => f.event === "session_metadata_updated")).toHaveLength(1);
  });
});

describe("POST /session/:id/model", () => {
  test("switches to an offered model: 200, model_switched, and the context reflects it", async () => {
    const { d, sessionId, clientId } = await sharedSession();
    await using events = await d.events(sessionId);
    const reply = await d.json("POST", `/session/${sessionId}/model`, { modelId: "fake-model-b" }, { "X-Svc-Client-Id": clientId });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ sessionId, modelId: "fake-model-b" });
    const switched = await events.first("model_switched");
    expect(switched.data).toEqual({ sessionId, modelId: "fake-model-b" });
    expect(switched.envelope.originatorClientId).toBe(clientId);
    expect((await d.json("GET", `/session/${sessionId}/context`)).body.state.models.currentModelId).toBe("fake-model-b");
  });

  test("an unknown model is an error response plus model_switch_failed; a missing modelId is 400", async () => {
    const { d, sessionId } = await sharedSession();
    await using events = await d.events(sessionId);
    const reply = await d.json("POST", `/session/${sessionId}/model`, { modelId: "no-such-model" });
    // The agent offered a model list, so the daemon refuses the id itself without asking the agent.
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: "unknown_model", sessionId, modelId: "no-such-model", availableModelIds: ["fake-model-a", "fake-model-b"] });
    expect((await events.first("model_switch_failed")).data).toMatchObject({ sessionId, requestedModelId: "no-such-model" });
    expect(events.types()).not.toContain("model_switched");
    expect((await d.json("GET", `/session/${sessionId}/context`)).body.state.models.currentModelId).toBe("fake-model-a");

    for (const body of [{}, { modelId: "" }, { modelId: 3 }]) expect((await d.json("POST", `/session/${sessionId}/model`, body)).status).toBe(400);
    expect((await d.json("POST", "/session/nope/model", { modelId: "fake-model-b" })).status).toBe(404);
  });
});

describe("read-only session views", () => {
  test("status is the session summary of an idle session", async () => {
    const { d, sessionId, createdAt } = await sharedSession();
    const status = await d.json("GET", `/session/${sessionId}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      sessionId,
      workspaceCwd: d.workspace,
      createdAt,
      clientCount: 1,
      hasActivePrompt: false,
      activeWorkState: "idle",
      isWaitingForPermission: false,
      pendingInteractionCount: 0,
      hasTurnError: false,
      pendingInteractions: [],
    });
  });

  test("context reports the models, modes and config options the agent gave (generic profile)", async () => {
    const { d, sessionId } = await sharedSession();
    const context = await d.json("GET", `/session/${sessionId}/context`);
    expect(context.status).toBe(200);
    expect(context.body).toMatchObject({
      v: 1,
      sessionId,
      workspaceCwd: d.workspace,
      state: {
        models: { currentModelId: "fake-model-a", availableModels: [{ modelId: "fake-model-a" }, { modelId: "fake-model-b" }] },
        modes: { currentModeId: "default" },
        configOptions: [{ id: "mode" }, { id: "model" }],
      },
    });
  });

  test("supported commands come from the agent's available_commands_update (generic profile)", async () => {
    const { d, sessionId } = await sharedSession();
    const names = await until(async () => {
      const reply = await d.json("GET", `/session/${sessionId}/supported-commands`);
      expect(reply.status).toBe(200);
      const list = reply.body.availableCommands.map((c: { name: string }) => c.name);
      return list.length > 0 ? list : null;
    });
    expect(names).toEqual(["help", "compress"]);
    // A generic agent reports no skills: the member is there, empty (the reference's web UI maps it).
    expect((await d.json("GET", `/session/${sessionId}/supported-commands`)).body.availableSkills).toEqual([]);
  });

  test("a virtual subagent. id has an empty context while the parent runtime is live", async () => {
    const { d } = await sharedSession();
    const context = await d.json("GET", "/session/subagent.x/context");
    expect(context.status).toBe(200);
    expect(context.body).toEqual({ v: 1, sessionId: "subagent.x", workspaceCwd: d.workspace, state: {} });
    expect((await d.json("GET", "/session/subagent.x/supported-commands")).body).toEqual({ v: 1, sessionId: "subagent.x", availableCommands: [], availableSkills: [] });
  });

});

describe("qwen-code profile", () => {
  let qwen: FakeAgentDaemon;
  beforeAll(async () => {
    qwen = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code" } });
  });
  afterAll(async () => {
    await qwen?.[Symbol.asyncDispose]();
  });

  test("the qwen-code profile closes with qwen/control/session/close and never sends session/close", async () => {
    const d = qwen;
    const a = await d.createSession({ sessionScope: "thread" });
    const b = await d.createSession({ sessionScope: "thread" });
    expect((await d.json("DELETE", `/session/${a.sessionId}`)).status).toBe(204);

    const wire = await d.wire();
    expect(wire.filter((e) => e.method === "qwen/control/session/close").map((e) => e.params)).toEqual([{ sessionId: a.sessionId, drainTimeoutMs: 8000 }]);
    expect(wire.some((e) => e.method === "session/close")).toBe(false);
    // The other session on the same child is untouched.
    expect((await d.json("GET", `/session/${b.sessionId}/status`)).status).toBe(200);
    expect((await d.json("GET", "/daemon/status")).body.runtime.channel.live).toBe(true);
    expect(await d.agentPids()).toHaveLength(1);
  });

  test("context and supported commands come from the agent's qwen/status methods under the qwen-code profile", async () => {
    const d = qwen;
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const context = await d.json("GET", `/session/${sessionId}/context`);
    expect(context.body).toMatchObject({ v: 1, sessionId, workspaceCwd: d.workspace, recovery: { kind: "clean" }, state: { models: { currentModelId: "fake-model-a" } } });
    const commands = await d.json("GET", `/session/${sessionId}/supported-commands`);
    expect(commands.body.availableCommands.map((c: { name: string }) => c.name)).toEqual(["help", "compress"]);
    // The agent's skill names, strings of 1 to 256 characters only.
    expect(commands.body.availableSkills).toEqual(["review"]);
    const asked = (await d.wire()).map((e) => e.method);
    expect(asked).toContain("qwen/status/session/context");
    expect(asked).toContain("qwen/status/session/supported_commands");
  });
});

describe("daemon-wide views", () => {
  test("status routes on a cold daemon answer without starting an agent child", async () => {
    // A data dir of its own: on the shared one this daemon would be the second, whose history answers 503 data_dir_owned.
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const capabilities = await d.json("GET", "/capabilities");
    const sessionGone = (sessionId: string) => [404, { code: "session_not_found", sessionId }];
    // Not implemented yet (issue 13): the daemon's JSON 404 for an unknown route.
    const reads: [string, unknown[]][] = [
      ["/health", [200, { status: "ok" }]],
      ["/health?deep", [200, { status: "ok", sessions: 0 }]],
      ["/daemon/status", [200, { v: 1, detail: "summary" }]],
      ["/daemon/status?detail=full", [200, { v: 1, detail: "full" }]],
      ["/session/any/status", sessionGone("any")],
      ["/session/any/context", sessionGone("any")],
      ["/session/any/supported-commands", sessionGone("any")],
      ["/session/subagent.any/context", sessionGone("subagent.any")],
      [`/workspace/${capabilities.body.workspaces[0].id}/sessions`, [200, { sessions: [] }]],
      ["/session/any/context-usage", sessionGone("any")],
      ["/session/any/tasks", sessionGone("any")],
      ["/workspace/mcp", [200, { v: 1, initialized: false, servers: [] }]],
      ["/workspace/skills", [200, { v: 1, initialized: false, skills: [] }]],
      ["/workspace/providers", [200, { v: 1, initialized: false, providers: [] }]],
      ["/workspace/env", [200, { v: 1, initialized: false, acpChannelLive: false }]],
      ["/workspace/preflight", [200, { v: 1, initialized: false, acpChannelLive: false }]],
      ["/workspace/tools", [200, { v: 1, initialized: false, acpChannelLive: false, tools: [] }]],
    ];
    for (const [path, [status, body]] of reads) {
      const reply = await d.json("GET", path);
      expect({ path, status: reply.status }).toEqual({ path, status: status as number });
      expect(reply.body).toMatchObject(body as object);
    }
    // Without a live parent runtime a virtual id is unknown.
    expect((await d.json("GET", "/session/subagent.x/context")).status).toBe(404);
    expect((await d.json("GET", "/health?deep")).body).toMatchObject({ status: "ok", sessions: 0, channelAlive: false });
    expect((await d.json("GET", "/daemon/status")).body.runtime).toMatchObject({ sessions: { active: 0 }, channel: { live: false } });
    expect(await d.agentPids()).toEqual([]);
  });

  test("the workspace session list, /health?deep and /daemon/status follow the live sessions", async () => {
    // Its own data dir: the file's shared daemon owns the default one (one recording daemon per data dir).
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const capabilities = await d.json("GET", "/capabilities");
    const workspaceId = capabilities.body.workspaces[0].id as string;
    expect(workspaceId).toMatch(/^[0-9a-f]{16}$/);
    expect((await d.json("GET", `/workspace/${workspaceId}/sessions`)).body).toEqual({ sessions: [] });

    const a = await d.createSession();
    const b = await d.createSession({ sessionScope: "thread" });
    await d.json("PATCH", `/session/${b.sessionId}/metadata`, { displayName: "second" });
    expect((await d.json("GET", "/health?deep")).body).toMatchObject({ status: "ok", sessions: 2, pendingPermissions: 0, channelAlive: true });
    expect((await d.json("GET", "/daemon/status")).body.runtime).toMatchObject({ sessions: { active: 2 }, channel: { live: true } });
    for (const selector of [workspaceId, encodeURIComponent(d.workspace)]) {
      const list = await d.json("GET", `/workspace/${selector}/sessions`);
      expect(list.status).toBe(200);
      const sessions = list.body.sessions as { sessionId: string; isArchived: boolean; displayName?: string }[];
      expect(sessions.map((s) => s.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
      expect(sessions.every((s) => s.isArchived === false)).toBe(true);
      expect(sessions.find((s) => s.sessionId === b.sessionId)?.displayName).toBe("second");
    }
    expect((await d.json("GET", "/workspace/0123456789abcdef/sessions")).status).toBe(404);
    expect((await d.json("GET", "/workspace/not-a-workspace/sessions")).status).toBe(400);

    await d.json("DELETE", `/session/${b.sessionId}`);
    expect((await d.json("GET", "/health?deep")).body).toMatchObject({ sessions: 1, channelAlive: true });
    // The closed session stays listed (it is persisted), no longer live; the live one keeps its live state.
    const after = (await d.json("GET", `/workspace/${workspaceId}/sessions`)).body.sessions as { sessionId: string; live: boolean; displayName?: string }[];
    expect(after.map((s) => [s.sessionId, s.live]).sort()).toEqual(
      [
        [a.sessionId, true],
        [b.sessionId, false],
      ].sort(),
    );
    expect(after.find((s) => s.sessionId === b.sessionId)).toMatchObject({ displayName: "second", persistedState: "closed", hasActivePrompt: false });
  });
});
