/**
 * `POST /session` against a real fake-agent child: scopes (`single` attaches, `thread` makes a new
 * session on the same child), client ids, coalesced cold starts, caps, the workspace check, and
 * model choices on create (`modelServiceId`, `startupConfig`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const CLIENT_ID = /^client_[0-9a-f-]{36}$/;

describe("session scopes", () => {
  test("two thread sessions share one agent child, each with its own session/new", async () => {
    await using d = await fakeAgentDaemon();
    const a = await d.createSession({ sessionScope: "thread" });
    const b = await d.createSession({ sessionScope: "thread" });
    expect(a).toMatchObject({ attached: false, workspaceCwd: d.workspace, clientId: expect.stringMatching(CLIENT_ID) });
    expect(b).toMatchObject({ attached: false, workspaceCwd: d.workspace });
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(Date.parse(a.createdAt)).not.toBeNaN();

    const [pid] = await d.waitForAgents(1);
    const news = (await d.wire()).filter((e) => e.method === "session/new");
    expect(news.map((e) => e.pid)).toEqual([pid!, pid!]);
    expect(news.map((e) => (e.params as { cwd: string }).cwd)).toEqual([d.workspace, d.workspace]);
  });

  test("a default-scope create attaches to the workspace's session with a new client id and sends the agent nothing", async () => {
    await using d = await fakeAgentDaemon();
    const first = await d.createSession();
    expect(first.attached).toBe(false);
    const second = await d.createSession({ sessionScope: "single" });
    expect(second).toMatchObject({ sessionId: first.sessionId, attached: true, hasActivePrompt: false, createdAt: first.createdAt });
    expect(second.clientId).toMatch(CLIENT_ID);
    expect(second.clientId).not.toBe(first.clientId);

    const wire = await d.wire();
    expect(wire.filter((e) => e.method === "session/new")).toHaveLength(1);
    expect((await d.json("GET", `/session/${first.sessionId}/status`)).body.clientCount).toBe(2);
  });

  test("X-Svc-Client-Id of a registered client is reused on attach; an unknown one is replaced by a minted id", async () => {
    await using d = await fakeAgentDaemon();
    const first = await d.createSession();

    const again = await d.createSession({}, { "X-Svc-Client-Id": first.clientId });
    expect(again).toMatchObject({ sessionId: first.sessionId, attached: true, clientId: first.clientId });

    const madeUp = await d.createSession({}, { "X-Svc-Client-Id": "alice" });
    expect(madeUp.attached).toBe(true);
    expect(madeUp.clientId).toMatch(CLIENT_ID);
    expect(madeUp.clientId).not.toBe(first.clientId);
    // "alice" was not registered: it cannot be used afterwards.
    const heartbeat = await d.json("POST", `/session/${first.sessionId}/heartbeat`, {}, { "X-Svc-Client-Id": "alice" });
    expect(heartbeat.status).toBe(400);
    expect(heartbeat.body).toMatchObject({ code: "invalid_client_id", sessionId: first.sessionId, clientId: "alice" });

    expect((await d.json("GET", `/session/${first.sessionId}/status`)).body.clientCount).toBe(2);
  });

  test("a malformed X-Svc-Client-Id is refused with 400 invalid_client_id", async () => {
    await using d = await fakeAgentDaemon();
    const reply = await d.json("POST", "/session", {}, { "X-Svc-Client-Id": "has space" });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe("invalid_client_id");
    expect(await d.agentPids()).toEqual([]);
  });

  test("concurrent cold creates coalesce onto one spawn: one attached:false, one session, one child", async () => {
    await using d = await fakeAgentDaemon();
    const replies = await Promise.all(Array.from({ length: 8 }, () => d.json("POST", "/session", {})));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    const bodies = replies.map((r) => r.body);
    expect(bodies.filter((b) => b.attached === false)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.sessionId)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.clientId)).size).toBe(8);

    expect(await d.waitForAgents(1)).toHaveLength(1);
    expect((await d.wire()).filter((e) => e.method === "session/new")).toHaveLength(1);
    expect((await d.json("GET", "/health?deep")).body.sessions).toBe(1);
  });

  test("an invalid sessionScope is 400 invalid_session_scope and starts no child", async () => {
    await using d = await fakeAgentDaemon();
    const reply = await d.json("POST", "/session", { sessionScope: "team" });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: "invalid_session_scope", error: expect.any(String) });
    expect(await d.agentPids()).toEqual([]);
  });

  test("a body that is not a JSON object is 400 invalid_request, creates and attaches nothing; an empty body is {}", async () => {
    await using d = await fakeAgentDaemon();
    for (const body of ["[1,2]", "[]", '"str"', "123", "null", "true"]) {
      const res = await d.fetch("/session", { method: "POST", headers: { "Content-Type": "application/json" }, body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(await res.json()).toEqual({ error: "The request body must be a JSON object", code: "invalid_request" });
    }
    expect(await d.agentPids()).toEqual([]);
    const empty = await d.fetch("/session", { method: "POST" });
    expect(empty.status).toBe(200);
    const created = (await empty.json()) as { sessionId: string };
    expect((await d.json("GET", `/session/${created.sessionId}/status`)).body.clientCount).toBe(1);
  });
});

describe("workspace check", () => {
  test("a cwd outside the bound workspace is 400 workspace_mismatch naming both paths", async () => {
    await using d = await fakeAgentDaemon();
    await using other = tempDir("svc-other-");
    for (const cwd of [other.path, join(d.workspace, "missing-subdir"), join(d.workspace, "..")]) {
      const reply = await d.json("POST", "/session", { cwd });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: "workspace_mismatch", boundWorkspace: d.workspace, requestedWorkspace: cwd, error: expect.any(String) });
    }
    expect(await d.agentPids()).toEqual([]);
  });

  test("a symlink to the workspace, or a path that resolves to it, is accepted and reports the canonical path", async () => {
    await using d = await fakeAgentDaemon();
    await using links = tempDir("svc-links-");
    const link = join(links.path, "ws-link");
    symlinkSync(d.workspace, link);

    const viaLink = await d.createSession({ cwd: link });
    expect(viaLink).toMatchObject({ attached: false, workspaceCwd: d.workspace });
    const viaDots = await d.createSession({ cwd: join(d.workspace, "sub", "..") });
    expect(viaDots).toMatchObject({ attached: true, sessionId: viaLink.sessionId, workspaceCwd: d.workspace });
    const exact = await d.createSession({ cwd: d.workspace });
    expect(exact).toMatchObject({ attached: true, sessionId: viaLink.sessionId });
    // The child runs in the canonical workspace.
    expect((await d.wire()).find((e) => e.event === "start")).toMatchObject({ cwd: d.workspace });
  });
});

describe("session caps", () => {
  test("--max-sessions 2: the third thread is 503 session_limit_exceeded with Retry-After 5; attaches do not count", async () => {
    await using d = await fakeAgentDaemon(["--max-sessions", "2"]);
    const main = await d.createSession();
    await d.createSession({ sessionScope: "thread" });

    const over = await d.json("POST", "/session", { sessionScope: "thread" });
    expect(over.status).toBe(503);
    expect(over.headers.get("retry-after")).toBe("5");
    expect(over.body).toMatchObject({ code: "session_limit_exceeded", limit: 2, scope: "workspace", error: expect.any(String) });

    // At the cap, attaching to the default session still works, repeatedly.
    for (let i = 0; i < 3; i++) expect(await d.createSession()).toMatchObject({ attached: true, sessionId: main.sessionId });
    expect((await d.json("GET", "/health?deep")).body.sessions).toBe(2);

    // Closing one frees a slot.
    expect((await d.json("DELETE", `/session/${main.sessionId}`)).status).toBe(204);
    expect((await d.createSession({ sessionScope: "thread" })).attached).toBe(false);
  });

  test("--max-total-sessions caps sessions across the daemon with scope total", async () => {
    await using d = await fakeAgentDaemon(["--max-total-sessions", "1", "--max-sessions", "0"]);
    await d.createSession({ sessionScope: "thread" });
    const over = await d.json("POST", "/session", { sessionScope: "thread" });
    expect(over.status).toBe(503);
    expect(over.headers.get("retry-after")).toBe("5");
    expect(over.body).toMatchObject({ code: "session_limit_exceeded", limit: 1, scope: "total" });
  });

  test("creates racing for the last slot: only as many succeed as the cap allows", async () => {
    await using d = await fakeAgentDaemon(["--max-sessions", "3"]);
    const replies = await Promise.all(Array.from({ length: 6 }, () => d.json("POST", "/session", { sessionScope: "thread" })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 503 && r.body.code === "session_limit_exceeded")).toHaveLength(3);
    expect((await d.json("GET", "/health?deep")).body.sessions).toBe(3);
    expect(await d.waitForAgents(1)).toHaveLength(1);
  });
});

describe("model choice on create", () => {
  // One daemon and child for these; each test uses its own sessions (only one uses the default scope).
  let shared: FakeAgentDaemon;
  beforeAll(async () => {
    shared = await fakeAgentDaemon();
  });
  afterAll(async () => {
    await shared?.[Symbol.asyncDispose]();
  });

  test("an offered modelServiceId is applied: modelApplied true and model_switched", async () => {
    const d = shared;
    const created = await d.createSession({ sessionScope: "thread", modelServiceId: "fake-model-b" });
    expect(created).toMatchObject({ attached: false, modelApplied: true });
    await using events = await d.events(created.sessionId, { "Last-Event-ID": "0" });
    expect((await events.first("model_switched")).data).toMatchObject({ sessionId: created.sessionId, modelId: "fake-model-b" });
    const context = await d.json("GET", `/session/${created.sessionId}/context`);
    expect(context.body.state.models.currentModelId).toBe("fake-model-b");
    const switches = (await d.wire()).filter((e) => e.method === "session/set_model" || e.method === "session/set_config_option");
    expect(switches.map((e) => (e.params as { sessionId: string }).sessionId)).toContain(created.sessionId);
  });

  test("an unknown modelServiceId is not an HTTP error: modelApplied false and model_switch_failed, on create and on attach", async () => {
    const d = shared;
    const created = await d.createSession({ modelServiceId: "no-such-model" });
    expect(created).toMatchObject({ attached: false, modelApplied: false });
    const attached = await d.createSession({ modelServiceId: "also-missing" });
    expect(attached).toMatchObject({ attached: true, modelApplied: false, sessionId: created.sessionId });

    await using events = await d.events(created.sessionId, { "Last-Event-ID": "0" });
    const failures = await until(() => {
      const seen = events.frames.filter((f) => f.event === "model_switch_failed");
      return seen.length === 2 ? seen : null;
    });
    expect(failures.map((f) => f.data.requestedModelId)).toEqual(["no-such-model", "also-missing"]);
    expect(failures[1]!.envelope.originatorClientId).toBe(attached.clientId);
    expect(events.types()).not.toContain("model_switched");
    // Without a modelServiceId the response carries no modelApplied.
    expect(await d.createSession()).not.toHaveProperty("modelApplied");
  });

  test("a malformed startupConfig is 400 invalid_startup_config and starts no child", async () => {
    await using d = await fakeAgentDaemon();
    const bad: unknown[] = [
      { startupConfig: "fake-model-a" },
      { startupConfig: [] },
      { startupConfig: {} },
      { startupConfig: { modelServiceId: "" } },
      { startupConfig: { modelServiceId: "fake-model-a", reasoningEffort: "extreme" } },
      { startupConfig: { modelServiceId: "fake-model-a", surprise: 1 } },
      { startupConfig: { modelServiceId: "fake-model-a" }, modelServiceId: "fake-model-b" },
      { startupConfig: { modelServiceId: "fake-model-a" }, sessionScope: "single" },
    ];
    for (const body of bad) {
      const reply = await d.json("POST", "/session", body);
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code: "invalid_startup_config" });
    }
    expect(await d.agentPids()).toEqual([]);
  });

  test("a startupConfig naming a model the agent does not offer is 422 startup_config_rejected and leaves no session", async () => {
    const d = shared;
    const sessionsBefore = (await d.json("GET", "/health?deep")).body.sessions;
    const reply = await d.json("POST", "/session", { startupConfig: { modelServiceId: "no-such-model" } });
    expect(reply.status).toBe(422);
    expect(reply.body.code).toBe("startup_config_rejected");
    expect((await d.json("GET", "/health?deep")).body.sessions).toBe(sessionsBefore);
    // The agent was told to drop the session it had opened for it.
    const wire = await d.wire();
    const opened = wire.filter((e) => e.method === "session/new").length;
    expect(opened).toBeGreaterThan(0);
    const closed = wire.filter((e) => e.method === "session/close").map((e) => (e.params as { sessionId: string }).sessionId);
    expect(closed).toHaveLength(1);
    expect((await d.json("GET", `/session/${closed[0]}/status`)).status).toBe(404);
  });

  test("an accepted startupConfig reports only what the agent accepted in startupConfigApplied, and always makes a new thread", async () => {
    const d = shared;
    const main = await d.createSession({ sessionScope: "thread" });
    const first = await d.createSession({ startupConfig: { modelServiceId: "fake-model-b", reasoningEffort: "high" } });
    expect(first).toMatchObject({ attached: false, modelApplied: true });
    // The model is the one selection sent to the agent; the effort was never sent, so it is not claimed.
    expect(first.startupConfigApplied).toEqual({ modelServiceId: "fake-model-b" });
    expect(first.sessionId).not.toBe(main.sessionId);
    const second = await d.createSession({ startupConfig: { modelServiceId: "fake-model-a", reasoningEffort: "none" } });
    expect(second.startupConfigApplied).toEqual({ modelServiceId: "fake-model-a" });
    const sent = await d.sentToAgent("session/set_config_option", second.sessionId);
    expect(sent.map((e) => e.params)).toEqual([{ sessionId: second.sessionId, configId: "model", value: "fake-model-a" }]);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect((await d.json("GET", `/session/${first.sessionId}/context`)).body.state.models.currentModelId).toBe("fake-model-b");
  });
});
