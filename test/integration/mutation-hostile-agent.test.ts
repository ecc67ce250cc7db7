/**
 * The mutation control routes against a careless or hostile agent (`FAKE_AGENT_HOSTILE_CONTROLS`,
 * see test/fixtures/fake-agent/hostile-controls.ts): answers are rebuilt from known, bounded fields
 * (no credential or extra member the agent adds comes through), an agent error is 502 with a bounded,
 * redacted message and no error data beyond a token `errorKind`, and a failed control changes nothing
 * (no settings written, no state stored, no event).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_AGENT_STRING } from "../../src/runtime/profile-controls.ts";
import { PLANTED } from "../fixtures/fake-agent/hostile-controls.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const TOKEN = "controls-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
/** A credential in the daemon's (and so the agent's) environment; the agent echoes it in an error message. */
const KNOWN_SECRET = "sk-hostile-known-secret-0123456789";

describe("hostile svc agent", () => {
  let d: FakeAgentDaemon;
  let sessionId: string;
  const post = (path: string, body?: unknown) => d.json("POST", path, body, AUTH);
  const settingsFile = () => join(d.workspace, ".svc", "settings.json");
  /** The event types the session has had so far (replayed from the start). */
  const eventTypes = async () => {
    await using events = await d.events(sessionId, { ...AUTH, "Last-Event-ID": "0" });
    await events.first("replay_complete");
    return events.types();
  };

  beforeAll(async () => {
    d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { env: { FAKE_AGENT_NAME: "svc", FAKE_AGENT_HOSTILE_CONTROLS: "1", OPENAI_API_KEY: KNOWN_SECRET } });
    sessionId = (await d.createSession({ sessionScope: "thread" }, AUTH)).sessionId;
  });
  afterAll(() => d[Symbol.asyncDispose]());

  test("MCP reload answers {accepted} only: servers, env, userinfo and oauth secrets the agent adds are dropped", async () => {
    const reply = await post("/workspace/mcp/reload", {});
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: true });
  });

  test("MCP restart: rebuilt from the known fields, the requested server named, the reason bounded; in the answer and the event", async () => {
    const reply = await post("/workspace/mcp/gh/restart");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ serverName: "gh", restarted: false, reason: `${"r".repeat(MAX_AGENT_STRING - 1)}…` });
    expect(JSON.stringify(reply.body)).not.toContain(PLANTED);
    await using events = await d.events(sessionId, { ...AUTH, "Last-Event-ID": "0" });
    const refused = await events.first("mcp_server_restart_refused");
    expect(refused.data).toEqual({ serverName: "gh", reason: `${"r".repeat(MAX_AGENT_STRING - 1)}…` });
  });

  test("an answer in no known shape is 502 agent_protocol_error, and publishes nothing", async () => {
    const before = (await eventTypes()).length;
    expect(await post("/workspace/mcp/odd/restart")).toMatchObject({ status: 502, body: { code: "agent_protocol_error", errorKind: "protocol_error" } });
    expect((await eventTypes()).length).toBe(before);
  });

  test("an agent error is 502 agent_control_failed: its data is not forwarded, only a token errorKind", async () => {
    const reply = await post("/workspace/mcp/reload", { forceReconnectWhich: ["fail"] });
    expect(reply).toMatchObject({ status: 502, body: { code: "agent_control_failed", errorKind: "agent_error", rpcCode: -32603 } });
    expect(reply.body.data).toBeUndefined();
    expect(reply.body.agentErrorKind).toBeUndefined(); // "Not A Token!" is not passed on
    expect(JSON.stringify(reply.body)).not.toContain(PLANTED);
  });

  test("tool toggle the agent refuses: 502, the settings file untouched, no tool_toggled; a later one lands whole", async () => {
    mkdirSync(join(d.workspace, ".svc"), { recursive: true });
    const text = JSON.stringify({ tools: { disabled: ["zeta"] }, keep: 1 });
    writeFileSync(settingsFile(), text);
    const reply = await post("/workspace/tools/boom/enable", { enabled: false });
    expect(reply).toMatchObject({ status: 502, body: { code: "agent_control_failed", errorKind: "agent_error", agentErrorKind: "tool_toggle_failed" } });
    expect(reply.body.error).toContain("boom with ");
    expect(JSON.stringify(reply.body)).not.toContain(KNOWN_SECRET);
    expect(JSON.stringify(reply.body)).not.toContain(PLANTED);
    expect(readFileSync(settingsFile(), "utf8")).toBe(text);
    expect(await eventTypes()).not.toContain("tool_toggled");

    expect(await post("/workspace/tools/bash/enable", { enabled: false })).toMatchObject({ status: 200, body: { toolName: "bash", enabled: false } });
    expect(JSON.parse(readFileSync(settingsFile(), "utf8"))).toEqual({ tools: { disabled: ["bash", "zeta"] }, keep: 1 });
    await using events = await d.events(sessionId, { ...AUTH, "Last-Event-ID": "0" });
    expect((await events.first("tool_toggled")).data).toEqual({ toolName: "bash", enabled: false });
  });

  test("a tool toggle the settings file refuses never reaches the agent", async () => {
    writeFileSync(settingsFile(), JSON.stringify({ tools: { disabled: "x" } }));
    const sent = (await d.sentToAgent("svc/control/workspace/tools/enable")).length;
    expect(await post("/workspace/tools/y/enable", { enabled: false })).toMatchObject({ status: 409, body: { code: "invalid_workspace_settings" } });
    expect(await d.sentToAgent("svc/control/workspace/tools/enable")).toHaveLength(sent);
    writeFileSync(settingsFile(), "{}");
  });

  test("an approval mode the agent answers outside the allowed set is 502: nothing stored, persisted or published", async () => {
    const modeNow = async () => (await d.json("GET", `/session/${sessionId}/context`, undefined, AUTH)).body.state.modes.currentModeId;
    const before = await modeNow();
    const file = settingsFile();
    const text = readFileSync(file, "utf8");
    for (const mode of ["yolo", "plan"]) {
      const reply = await post(`/session/${sessionId}/approval-mode`, { mode, persist: true });
      expect([mode, reply.status, reply.body.code]).toEqual([mode, 502, "agent_protocol_error"]);
    }
    expect(await modeNow()).toBe(before);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(await eventTypes()).not.toContain("approval_mode_changed");
  });

  test("an unbounded previous mode from the agent is not passed on", async () => {
    const reply = await post(`/session/${sessionId}/approval-mode`, { mode: "auto-edit" });
    expect(reply).toMatchObject({ status: 200, body: { mode: "auto-edit", previous: "default", persisted: false } });
    await using events = await d.events(sessionId, { ...AUTH, "Last-Event-ID": "0" });
    expect((await events.first("approval_mode_changed")).data).toEqual({ sessionId, previous: "default", next: "auto-edit", persisted: false });
    expect(existsSync(join(d.workspace, ".qwen"))).toBe(false);
  });
});
