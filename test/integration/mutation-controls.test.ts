/**
 * The mutation control routes with a live agent: the fake agent as Qwen Code (answering
 * `qwen/control/*` in 0.24.4's shapes) and as a generic ACP agent. Each route's call on the wire,
 * its answer, its event, and where workspace-level events go (every live session of the workspace).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "controls-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

interface Live {
  d: FakeAgentDaemon;
  a: string;
  b: string;
  post(path: string, body?: unknown): ReturnType<FakeAgentDaemon["json"]>;
  events(sessionId: string): Promise<SseClient>;
}

async function live(env: Record<string, string> = {}, args: string[] = []): Promise<Live> {
  const d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace", ...args], { env });
  const a = (await d.createSession({ sessionScope: "thread" }, AUTH)).sessionId;
  const b = (await d.createSession({ sessionScope: "thread" }, AUTH)).sessionId;
  return {
    d,
    a,
    b,
    post: (path, body) => d.json("POST", path, body, AUTH),
    events: (sessionId) => d.events(sessionId, { ...AUTH, "Last-Event-ID": "0" }),
  };
}

describe("qwen-code profile", () => {
  let q: Live;
  beforeAll(async () => {
    q = await live({ FAKE_AGENT_NAME: "qwen-code" });
  });
  afterAll(() => q.d[Symbol.asyncDispose]());

  test("approval-mode goes through qwen/control/session/approval_mode, answers the reference's shape and publishes approval_mode_changed", async () => {
    const reply = await q.post(`/session/${q.a}/approval-mode`, { mode: "plan" });
    expect(reply).toMatchObject({ status: 200, body: { sessionId: q.a, mode: "plan", previous: "default", persisted: false } });
    expect((await q.d.sentToAgent("qwen/control/session/approval_mode", q.a)).map((e) => e.params)).toEqual([{ sessionId: q.a, mode: "plan" }]);
    await using events = await q.events(q.a);
    const changed = await events.first("approval_mode_changed");
    expect(changed.id).toBeNumber();
    expect(changed.data).toEqual({ sessionId: q.a, previous: "default", next: "plan", persisted: false });
    // The session's context reflects the change.
    expect((await q.d.json("GET", `/session/${q.a}/context`, undefined, AUTH)).body.state.modes.currentModeId).toBe("plan");
  });

  test("an agent refusal is 502 agent_control_failed (its error data not passed on) and changes nothing", async () => {
    const reply = await q.post(`/session/${q.a}/approval-mode`, { mode: "auto-edit" });
    expect(reply).toMatchObject({ status: 502, body: { code: "agent_control_failed", errorKind: "agent_error", rpcCode: -32602 } });
    expect(reply.body).not.toHaveProperty("data");
    expect((await q.d.json("GET", `/session/${q.a}/context`, undefined, AUTH)).body.state.modes.currentModeId).toBe("plan");
  });

  test("persist writes tools.approvalMode to .qwen/settings.json and tells the workspace's other sessions", async () => {
    const reply = await q.post(`/session/${q.b}/approval-mode`, { mode: "yolo", persist: true });
    expect(reply).toMatchObject({ status: 200, body: { sessionId: q.b, mode: "yolo", persisted: true } });
    expect(JSON.parse(readFileSync(join(q.d.workspace, ".qwen", "settings.json"), "utf8"))).toEqual({ tools: { approvalMode: "yolo" } });
    await using other = await q.events(q.a);
    const seen = await other.first("approval_mode_changed", (f) => f.data.sessionId === q.b);
    expect(seen.data).toEqual({ sessionId: q.b, previous: "default", next: "yolo", persisted: true });
  });

  test("a settings file that cannot take the mode leaves it unpersisted (persisted: false) and untouched", async () => {
    const file = join(q.d.workspace, ".qwen", "settings.json");
    const good = readFileSync(file, "utf8");
    writeFileSync(file, "{ // comments are not JSON\n}");
    const reply = await q.post(`/session/${q.b}/approval-mode`, { mode: "yolo", persist: true });
    expect(reply).toMatchObject({ status: 200, body: { mode: "yolo", persisted: false } });
    expect(readFileSync(file, "utf8")).toBe("{ // comments are not JSON\n}");
    writeFileSync(file, good);
  });

  test("tool toggle rewrites .qwen/settings.json (the file qwen reads), sends the agent nothing, and tells every live session", async () => {
    const reply = await q.post("/workspace/tools/write_file/enable", { enabled: false });
    expect(reply).toMatchObject({ status: 200, body: { toolName: "write_file", enabled: false } });
    expect(JSON.parse(readFileSync(join(q.d.workspace, ".qwen", "settings.json"), "utf8")).tools).toEqual({ approvalMode: "yolo", disabled: ["write_file"] });
    expect(existsSync(join(q.d.workspace, ".svc"))).toBe(false);
    expect((await q.d.wire()).some((e) => typeof e.method === "string" && e.method.includes("tools"))).toBe(false);
    for (const sessionId of [q.a, q.b]) {
      await using events = await q.events(sessionId);
      expect((await events.first("tool_toggled")).data).toEqual({ toolName: "write_file", enabled: false });
    }
  });

  test("skill toggles write skills.disabled, refresh the agent's skills and publish settings_changed", async () => {
    const one = await q.post("/workspace/skills/fake-skill/enable", { enabled: false });
    expect(one).toMatchObject({ status: 200, body: { skillName: "fake-skill", enabled: false, changed: true, activation: "applied", sessionsRefreshed: 1, sessionsFailed: 0 } });
    expect((await q.d.sentToAgent("qwen/control/workspace/skills/refresh")).map((e) => e.params)).toEqual([{ cwd: q.d.workspace, reason: "settings" }]);
    const batch = await q.post("/workspace/skills/enable", { skillNames: ["fake-skill", "FAKE-SKILL", "other"], enabled: true });
    expect(batch).toMatchObject({
      status: 200,
      body: { enabled: true, activation: "applied", results: [{ skillName: "fake-skill", enabled: true, changed: true }, { skillName: "other", enabled: true, changed: false }] },
    });
    expect(JSON.parse(readFileSync(join(q.d.workspace, ".qwen", "settings.json"), "utf8")).skills).toEqual({ disabled: [] });
    await using events = await q.events(q.a);
    const changes = [await events.first("settings_changed")];
    expect(changes[0]!.data).toEqual({ key: "skills.disabled", value: ["fake-skill"], scope: "workspace" });
  });

  test("init creates QWEN.md for the qwen agent and publishes workspace_initialized", async () => {
    const reply = await q.post("/workspace/init", {});
    const path = join(q.d.workspace, "QWEN.md");
    expect(reply).toMatchObject({ status: 200, body: { path, action: "created" } });
    await using events = await q.events(q.b);
    expect((await events.first("workspace_initialized")).data).toEqual({ path, action: "created" });
  });

  test("MCP reload goes to qwen/control/workspace/mcp/reload and answers 202 with the agent's answer", async () => {
    const reply = await q.post("/workspace/mcp/reload", { forceReconnectWhich: ["db"] });
    expect(reply).toMatchObject({ status: 202, body: { accepted: true } });
    expect((await q.d.sentToAgent("qwen/control/workspace/mcp/reload")).map((e) => e.params)).toEqual([{ cwd: q.d.workspace, forceReconnectWhich: ["db"] }]);
  });

  test("MCP restart: each outcome is published; the agent's typed failures keep the reference's codes", async () => {
    expect(await q.post("/workspace/mcp/db/restart")).toMatchObject({ status: 200, body: { serverName: "db", restarted: true, durationMs: 12 } });
    expect(await q.post("/workspace/mcp/busy/restart")).toMatchObject({ status: 200, body: { serverName: "busy", restarted: false, skipped: true, reason: "in_flight" } });
    expect(await q.post("/workspace/mcp/pooled/restart?entryIndex=*")).toMatchObject({ status: 200, body: { serverName: "pooled" } });
    expect(await q.post("/workspace/mcp/db/restart?entryIndex=3")).toMatchObject({ status: 200 });
    expect(await q.post("/workspace/mcp/missing/restart")).toMatchObject({ status: 404, body: { code: "mcp_server_not_found", serverName: "missing" } });
    expect(await q.post("/workspace/mcp/broken/restart")).toMatchObject({ status: 502, body: { code: "mcp_server_restart_failed", serverName: "broken", mcpStatus: "disconnected" } });
    expect((await q.d.sentToAgent("qwen/control/workspace/mcp/restart")).map((e) => e.params)).toEqual([
      { serverName: "db" },
      { serverName: "busy" },
      { serverName: "pooled" },
      { serverName: "db", entryIndex: 3 },
      { serverName: "missing" },
      { serverName: "broken" },
    ]);
    await using events = await q.events(q.a);
    const restartFrames = () => events.frames.filter((f) => f.event.startsWith("mcp_server_"));
    const frames = await until(() => (restartFrames().length >= 5 ? restartFrames() : null), 5000, "the five restart outcomes");
    expect(frames.map((f) => [f.event, f.data])).toEqual([
      ["mcp_server_restarted", { serverName: "db", durationMs: 12 }],
      ["mcp_server_restart_refused", { serverName: "busy", reason: "in_flight" }],
      ["mcp_server_restarted", { serverName: "pooled", durationMs: 5, entryIndex: 0 }],
      ["mcp_server_restart_refused", { serverName: "pooled", reason: "spawn failed", entryIndex: 1 }],
      ["mcp_server_restarted", { serverName: "db", durationMs: 12 }],
    ]);
    expect(await q.d.agentPids()).toHaveLength(1);
  });

  test("runtime MCP servers go to qwen/control/workspace/mcp/runtime-add|remove with the client id; typed failures keep the reference's codes", async () => {
    const { clientId } = (await q.d.createSession({ sessionScope: "thread" }, AUTH)) as { clientId: string };
    const as = { ...AUTH, "X-Svc-Client-Id": clientId };
    const add = (name: string) => q.d.json("POST", "/workspace/mcp/servers", { name, config: { url: "http://127.0.0.1:9/sse" } }, as);
    expect(await add("db")).toMatchObject({ status: 200, body: { name: "db", transport: "sse", replaced: false, shadowedSettings: true, toolCount: 3, originatorClientId: clientId } });
    expect(await add("warned")).toMatchObject({ status: 200, body: { name: "warned", skipped: true, reason: "budget_warning_only" } });
    expect(await add("full")).toMatchObject({ status: 409, body: { code: "mcp_budget_would_exceed", serverName: "full" } });
    expect(await add("dead")).toMatchObject({ status: 502, body: { code: "mcp_server_spawn_failed", serverName: "dead" } });
    expect((await q.d.sentToAgent("qwen/control/workspace/mcp/runtime-add")).map((e) => e.params)).toEqual(
      ["db", "warned", "full", "dead"].map((name) => ({ cwd: q.d.workspace, name, config: { url: "http://127.0.0.1:9/sse" }, originatorClientId: clientId })),
    );
    expect(await q.d.json("DELETE", "/workspace/mcp/servers/db", undefined, as)).toMatchObject({ status: 200, body: { name: "db", removed: true, wasShadowingSettings: false } });
    expect(await q.d.json("DELETE", "/workspace/mcp/servers/absent", undefined, as)).toMatchObject({ status: 200, body: { name: "absent", skipped: true, reason: "not_present" } });
    await using events = await q.events(q.b);
    const frames = await until(() => {
      const found = events.frames.filter((f) => f.event === "mcp_server_added" || f.event === "mcp_server_removed");
      return found.length >= 2 ? found : null;
    }, 5000, "the add and the remove");
    expect(frames.map((f) => [f.event, f.data.name, f.envelope.originatorClientId])).toEqual([
      ["mcp_server_added", "db", clientId],
      ["mcp_server_removed", "db", clientId],
    ]);
  });
});

describe("generic profile", () => {
  let g: Live;
  beforeAll(async () => {
    g = await live();
  });
  afterAll(() => g.d[Symbol.asyncDispose]());

  test("approval-mode uses session/set_mode for a mode the session offers", async () => {
    const reply = await g.post(`/session/${g.a}/approval-mode`, { mode: "yolo" });
    expect(reply).toMatchObject({ status: 200, body: { sessionId: g.a, mode: "yolo", previous: "default", persisted: false } });
    expect((await g.d.sentToAgent("session/set_mode", g.a)).map((e) => e.params)).toEqual([{ sessionId: g.a, modeId: "yolo" }]);
    expect((await g.d.wire()).some((e) => e.method === "qwen/control/session/approval_mode")).toBe(false);
    await using events = await g.events(g.a);
    expect((await events.first("approval_mode_changed")).data).toEqual({ sessionId: g.a, previous: "default", next: "yolo", persisted: false });
    expect((await g.d.json("GET", `/session/${g.a}/context`, undefined, AUTH)).body.state.modes.currentModeId).toBe("yolo");
  });

  test("a mode the session does not offer is 409 approval_mode_unavailable; persist has nowhere to go", async () => {
    expect(await g.post(`/session/${g.a}/approval-mode`, { mode: "auto-edit" })).toMatchObject({
      status: 409,
      body: { code: "approval_mode_unavailable", mode: "auto-edit", availableModes: ["default", "plan", "yolo"] },
    });
    expect(await g.post(`/session/${g.b}/approval-mode`, { mode: "plan", planMode: false })).toMatchObject({ status: 400, body: { code: "invalid_plan_mode" } });
    expect(await g.post(`/session/${g.b}/approval-mode`, { mode: "default", planMode: false })).toMatchObject({ status: 501, body: { code: "agent_control_unsupported" } });
    expect(await g.post(`/session/${g.b}/approval-mode`, { mode: "plan", persist: true })).toMatchObject({ status: 200, body: { persisted: false } });
    expect(existsSync(join(g.d.workspace, ".svc"))).toBe(false);
  });

  test("MCP reload/restart and skill toggles are 501 agent_control_unsupported", async () => {
    for (const [path, body] of [
      ["/workspace/mcp/reload", {}],
      ["/workspace/mcp/db/restart", undefined],
      ["/workspace/skills/fake-skill/enable", { enabled: true }],
      ["/workspace/skills/enable", { skillNames: ["fake-skill"], enabled: true }],
    ] as const)
      expect([path, await g.post(path, body)]).toMatchObject([path, { status: 501, body: { code: "agent_control_unsupported", profile: "generic" } }]);
    expect(existsSync(join(g.d.workspace, ".qwen"))).toBe(false);
  });

  test("tool toggle writes the built-in agent's .svc/settings.json and tells both sessions", async () => {
    expect(await g.post("/workspace/tools/read_file/enable", { enabled: false })).toMatchObject({ status: 200 });
    expect(JSON.parse(readFileSync(join(g.d.workspace, ".svc", "settings.json"), "utf8"))).toEqual({ tools: { disabled: ["read_file"] } });
    for (const sessionId of [g.a, g.b]) {
      await using events = await g.events(sessionId);
      expect((await events.first("tool_toggled")).data).toEqual({ toolName: "read_file", enabled: false });
    }
  });
});

describe("svc profile (an agent named svc, without the svc/control methods the built-in agent adds)", () => {
  let s: Live;
  beforeAll(async () => {
    s = await live({ FAKE_AGENT_NAME: "svc" }, ["--mcp-client-budget", "4"]);
  });
  afterAll(() => s.d[Symbol.asyncDispose]());

  test("tool toggle writes .svc/settings.json and also tells the live agent; a missing method is tolerated", async () => {
    expect(await s.post("/workspace/tools/run_shell/enable", { enabled: false })).toMatchObject({ status: 200, body: { toolName: "run_shell", enabled: false } });
    expect((await s.d.sentToAgent("svc/control/workspace/tools/enable")).map((e) => e.params)).toEqual([{ cwd: s.d.workspace, name: "run_shell", enabled: false }]);
    expect(JSON.parse(readFileSync(join(s.d.workspace, ".svc", "settings.json"), "utf8"))).toEqual({ tools: { disabled: ["run_shell"] } });
  });

  test("approval-mode asks svc/control/session/approval_mode first, then falls back to session/set_mode", async () => {
    const reply = await s.post(`/session/${s.a}/approval-mode`, { mode: "plan", persist: true });
    expect(reply).toMatchObject({ status: 200, body: { sessionId: s.a, mode: "plan", previous: "default", persisted: true } });
    expect(await s.d.sentToAgent("svc/control/session/approval_mode", s.a)).toHaveLength(1);
    expect((await s.d.sentToAgent("session/set_mode", s.a)).map((e) => e.params)).toEqual([{ sessionId: s.a, modeId: "plan" }]);
    expect(JSON.parse(readFileSync(join(s.d.workspace, ".svc", "settings.json"), "utf8")).tools.approvalMode).toBe("plan");
  });

  test("MCP reload without the agent's method is 501; init prepares AGENTS.md", async () => {
    expect(await s.post("/workspace/mcp/reload", {})).toMatchObject({ status: 501, body: { code: "agent_control_unsupported", profile: "svc" } });
    expect(await s.post("/workspace/init", {})).toMatchObject({ status: 200, body: { path: join(s.d.workspace, "AGENTS.md"), action: "created" } });
  });

  test("budget events come under svc/notify/session/mcp-budget-event", async () => {
    const params = { v: 1, sessionId: s.b, kind: "budget_warning", liveCount: 3, reservedCount: 3, budget: 4, thresholdRatio: 0.75, mode: "enforce" };
    await using events = await s.events(s.b);
    const reply = await s.post(`/session/${s.b}/prompt`, { prompt: [{ type: "text", text: `@notify svc/notify/session/mcp-budget-event ${JSON.stringify(params)}` }] });
    expect(reply.status).toBe(202);
    const warning = await events.first("mcp_budget_warning");
    expect(warning.data).toEqual({ liveCount: 3, reservedCount: 3, budget: 4, thresholdRatio: 0.75, mode: "enforce" });
  });
});

describe("rate limiting", () => {
  test("the control routes count as mutations", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace", "--rate-limit", "--rate-limit-mutation", "1"]);
    expect((await d.json("POST", "/workspace/init", {}, AUTH)).status).toBe(200);
    expect(await d.json("POST", "/workspace/tools/x/enable", { enabled: false }, AUTH)).toMatchObject({ status: 429, body: { code: "rate_limit_exceeded", tier: "mutation" } });
    expect(existsSync(join(d.workspace, ".svc"))).toBe(false);
  });
});
