/**
 * MCP guardrails: the client budget reaches the agent child as environment (both families' names,
 * from the daemon's configuration only), and the agent's budget notifications
 * (`<prefix>/notify/session/mcp-budget-event`) become `mcp_budget_warning` /
 * `mcp_child_refused_batch` events with ids, journaled and replayed like any other.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { until } from "../helpers/until.ts";
import { RELAY_BURST } from "../../src/runtime/mcp-budget-relay.ts";

/** A daemon with an enforced client budget of 4 and a qwen-code agent. */
const budgeted = () => fakeAgentDaemon(["--mcp-client-budget", "4"], { env: { FAKE_AGENT_NAME: "qwen-code" } });
const METHOD = "qwen/notify/session/mcp-budget-event";

/** The budget variables the (first) agent child started with. */
async function budgetVars(d: FakeAgentDaemon): Promise<Record<string, string>> {
  const env = await until(async () => (await d.wire()).find((e) => e.event === "env"), 5000, "the agent's env line");
  return env.budgetVars as Record<string, string>;
}

const warning = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  v: 1,
  sessionId,
  kind: "budget_warning",
  liveCount: 3,
  reservedCount: 3,
  budget: 4,
  thresholdRatio: 0.75,
  mode: "enforce",
  ...extra,
});

const refused = (sessionId: string) => ({
  v: 1,
  sessionId,
  kind: "refused_batch",
  refusedServers: [{ name: "db", transport: "stdio", reason: "budget_exhausted" }],
  budget: 4,
  liveCount: 4,
  reservedCount: 4,
  mode: "enforce",
});

/** Has the agent send each notification (one `@notify` line each), then waits for the turn to end. */
async function agentNotifies(d: FakeAgentDaemon, sessionId: string, notes: [string, unknown][]): Promise<void> {
  await using events = await d.events(sessionId);
  const text = notes.map(([method, params]) => `@notify ${method} ${JSON.stringify(params)}`).join("\n");
  const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  expect(reply.status).toBe(202);
  await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);
}

describe("budget forwarding", () => {
  test("the configured budget and mode reach the child under the svc and the qwen names; inherited ones are replaced", async () => {
    await using d = await fakeAgentDaemon(["--mcp-client-budget", "4", "--mcp-budget-mode", "warn"], {
      env: { QWEN_SERVE_MCP_BUDGET_MODE: "off", QWEN_SERVE_MCP_CLIENT_BUDGET: "99", SVC_SERVE_MCP_BUDGET_MODE: "enforce" },
    });
    await d.createSession();
    expect(await budgetVars(d)).toEqual({
      SVC_SERVE_MCP_CLIENT_BUDGET: "4",
      SVC_SERVE_MCP_BUDGET_MODE: "warn",
      QWEN_SERVE_MCP_CLIENT_BUDGET: "4",
      QWEN_SERVE_MCP_BUDGET_MODE: "warn",
    });
  });

  test("a budget from the environment brings its default mode, enforce", async () => {
    await using d = await fakeAgentDaemon([], { env: { SVC_SERVE_MCP_CLIENT_BUDGET: "2" } });
    await d.createSession();
    expect(await budgetVars(d)).toEqual({
      SVC_SERVE_MCP_CLIENT_BUDGET: "2",
      SVC_SERVE_MCP_BUDGET_MODE: "enforce",
      QWEN_SERVE_MCP_CLIENT_BUDGET: "2",
      QWEN_SERVE_MCP_BUDGET_MODE: "enforce",
    });
  });

  test("with no budget flag the child gets none of the variables, even when the daemon inherited some", async () => {
    await using d = await fakeAgentDaemon([], { env: { QWEN_SERVE_MCP_BUDGET_MODE: "warn", QWEN_SERVE_MCP_CLIENT_BUDGET: "7", SVC_SERVE_MCP_BUDGET_MODE: "warn", QWEN_SERVE_NO_MCP_POOL: "1" } });
    await d.createSession();
    expect(await budgetVars(d)).toEqual({});
  });

  test("a daemon without the shared pool tells the child under both names", async () => {
    await using d = await fakeAgentDaemon([], { env: { SVC_SERVE_NO_MCP_POOL: "1" } });
    await d.createSession();
    expect(await budgetVars(d)).toEqual({ SVC_SERVE_NO_MCP_POOL: "1", QWEN_SERVE_NO_MCP_POOL: "1" });
  });
});

describe("budget events (qwen-code profile)", () => {
  test("warnings and refused batches are published with ids and replay from Last-Event-ID: 0; malformed ones are dropped", async () => {
    await using d = await budgeted();
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const { sessionId: other } = await d.createSession({ sessionScope: "thread" });
    const method = "qwen/notify/session/mcp-budget-event";
    await agentNotifies(d, sessionId, [
      [method, warning(sessionId, { scope: "workspace" })],
      [method, { ...warning(sessionId), liveCount: -1 }], // malformed: dropped
      [method, { ...refused(sessionId), refusedServers: [{ name: "db" }] }], // malformed: dropped
      [method, { ...warning(sessionId), kind: "budget_exhausted" }], // unknown kind: dropped
      ["svc/notify/session/mcp-budget-event", warning(sessionId)], // another family's method: not this profile's
      [method, refused(sessionId)],
      [method, warning(other)], // the other session's
    ]);

    await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
    const warn = await replay.first("mcp_budget_warning");
    const batch = await replay.first("mcp_child_refused_batch");
    expect(warn.id).toBeNumber();
    expect(batch.id).toBeGreaterThan(warn.id!);
    expect(warn.data).toEqual({ liveCount: 3, reservedCount: 3, budget: 4, thresholdRatio: 0.75, mode: "enforce", scope: "workspace" });
    expect(batch.data).toEqual({ refusedServers: [{ name: "db", transport: "stdio", reason: "budget_exhausted" }], budget: 4, liveCount: 4, reservedCount: 4, mode: "enforce" });
    await replay.waitFor("turn_complete");
    expect(replay.frames.filter((f) => f.event.startsWith("mcp_")).map((f) => f.event)).toEqual(["mcp_budget_warning", "mcp_child_refused_batch"]);

    await using otherReplay = await d.events(other, { "Last-Event-ID": "0" });
    const otherWarn = await otherReplay.first("mcp_budget_warning");
    expect(otherWarn.data).toEqual({ liveCount: 3, reservedCount: 3, budget: 4, thresholdRatio: 0.75, mode: "enforce" });
    // The daemon's log lines arrive asynchronously (the binary's stderr): wait for the first, then count.
    const malformed = () => d.logs.filter((l) => l.includes("malformed MCP budget notification"));
    await until(() => malformed().length > 0 || null, 5000, "the malformed-notification log line");
    expect(malformed()).toHaveLength(1);
  });

  test("the daemon's budget and mode are authoritative: the agent's claimed ones are replaced", async () => {
    await using d = await fakeAgentDaemon(["--mcp-client-budget", "8", "--mcp-budget-mode", "warn"], { env: { FAKE_AGENT_NAME: "qwen-code" } });
    const { sessionId } = await d.createSession();
    await agentNotifies(d, sessionId, [[METHOD, warning(sessionId, { mode: "off", budget: 4 })]]);
    await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
    expect((await replay.first("mcp_budget_warning")).data).toEqual({ liveCount: 3, reservedCount: 3, budget: 8, thresholdRatio: 0.75, mode: "warn" });
  });

  test("under budget mode off nothing is relayed or recorded, whatever mode the agent claims", async () => {
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code" } });
    const { sessionId } = await d.createSession();
    await agentNotifies(d, sessionId, [
      [METHOD, warning(sessionId)],
      [METHOD, refused(sessionId)],
    ]);
    await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
    await replay.waitFor("turn_complete");
    expect(replay.types().filter((t) => t.startsWith("mcp_"))).toEqual([]);
    const issues = ((await d.json("GET", "/daemon/status")).body.issues as { code: string }[]).map((i) => i.code);
    expect(issues.filter((c) => c.startsWith("mcp_budget"))).toEqual([]);
  });

  test("an event for a session that is not registered is dropped without a trace in the daemon's status", async () => {
    await using d = await budgeted();
    const { sessionId } = await d.createSession();
    await agentNotifies(d, sessionId, [[METHOD, refused("no-such-session")]]);
    const issues = ((await d.json("GET", "/daemon/status")).body.issues as { code: string }[]).map((i) => i.code);
    expect(issues.filter((c) => c.startsWith("mcp_budget"))).toEqual([]);
  });

  test(`a flood of warnings and refused batches relays at most ${RELAY_BURST} of each per session and window, so it cannot flood the replay ring`, async () => {
    await using d = await budgeted();
    const { sessionId } = await d.createSession();
    const flood: [string, unknown][] = [];
    for (let i = 0; i < 300; i++) flood.push([METHOD, warning(sessionId)], [METHOD, refused(sessionId)]);
    await agentNotifies(d, sessionId, flood);
    await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
    await replay.waitFor("turn_complete");
    const types = replay.types();
    expect(types.filter((t) => t === "mcp_budget_warning")).toHaveLength(RELAY_BURST);
    expect(types.filter((t) => t === "mcp_child_refused_batch")).toHaveLength(RELAY_BURST);
    // The status still follows every event it was told of.
    const issues = ((await d.json("GET", "/daemon/status")).body.issues as { code: string }[]).map((i) => i.code);
    expect(issues).toContain("mcp_budget_exhausted");
  });

  test("a generic agent's notification under the qwen name is not relayed", async () => {
    await using d = await fakeAgentDaemon(["--mcp-client-budget", "4"]);
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await agentNotifies(d, sessionId, [["qwen/notify/session/mcp-budget-event", warning(sessionId)]]);
    await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
    await replay.waitFor("turn_complete");
    expect(replay.types()).not.toContain("mcp_budget_warning");
  });

  test("the events stream advertises mcp_guardrail_events", async () => {
    await using d = await fakeAgentDaemon();
    expect((await d.json("GET", "/capabilities")).body.features).toContain("mcp_guardrail_events");
  });
});

describe("daemon status from relayed budget events", () => {
  const codes = async (d: FakeAgentDaemon) => ((await d.json("GET", "/daemon/status")).body.issues as { code: string }[]).map((i) => i.code);

  test("a warning raises mcp_budget_warning, a refused batch mcp_budget_exhausted; a new child forgets both", async () => {
    await using d = await budgeted();
    const { sessionId } = await d.createSession();
    const method = "qwen/notify/session/mcp-budget-event";
    expect(await codes(d)).not.toContain("mcp_budget_warning");

    await agentNotifies(d, sessionId, [[method, warning(sessionId)]]);
    expect(await codes(d)).toContain("mcp_budget_warning");

    // The same server refused by two passes counts once; the state follows the latest counts.
    await agentNotifies(d, sessionId, [[method, refused(sessionId)], [method, refused(sessionId)]]);
    const exhausted = await codes(d);
    expect(exhausted).toContain("mcp_budget_exhausted");
    expect(exhausted).not.toContain("mcp_budget_warning");

    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    await until(async () => !(await codes(d)).includes("mcp_budget_exhausted"), 15_000, "the budget issue to go with the child");
  });
});
