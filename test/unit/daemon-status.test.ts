/**
 * The daemon status snapshot, its issue rules and roll-up (pure): every issue code of the spec is
 * provoked from its inputs, with the reference daemon's severities and thresholds.
 */
import { describe, expect, test } from "bun:test";
import { daemonStatus, type StatusInputs } from "../../src/server/daemon-status.ts";
import type { McpBudgetState } from "../../src/runtime/mcp-budget-state.ts";
import { RECYCLE_ISSUE_MS, rollUp, type StatusIssue, type WorkspaceRuntimeState } from "../../src/server/status-issues.ts";
import type { SectionReport } from "../../src/server/status-sections.ts";
import { configFixture } from "../helpers/config.ts";

const issue = (severity: StatusIssue["severity"]): StatusIssue => ({ code: "x", severity, message: "" });

describe("rollUp", () => {
  test.each<[StatusIssue["severity"][], string]>([
    [[], "ok"],
    [["warning"], "warning"],
    [["warning", "warning"], "warning"],
    [["warning", "error"], "error"],
    [["error"], "error"],
  ])("%j → %s", (severities, expected) => {
    expect(rollUp(severities.map(issue))).toBe(expected as ReturnType<typeof rollUp>);
  });
});

type Overrides = Partial<StatusInputs> & { sessions?: number; pendingPermissions?: number; workspace?: Partial<WorkspaceRuntimeState> };

async function inputs(args: string[], overrides: Overrides = {}): Promise<StatusInputs> {
  await using fx = configFixture();
  const { sessions = 0, pendingPermissions = 0, workspace = {}, ...rest } = overrides;
  const config = fx.resolve(args);
  return {
    config,
    daemon: { id: "daemon:1", pid: 1, processStartedAt: 0, listenerReadyAt: 10 },
    activity: { sessions, pendingPermissions, activePrompts: 0, liveChannels: 0, childPids: [] },
    workspaces: [
      {
        workspaceId: "0123456789abcdef",
        workspaceCwd: config.workspace,
        primary: true,
        state: sessions > 0 ? "live" : "cold",
        childPid: null,
        lastError: null,
        sessions,
        channelLive: sessions > 0,
        startInProgress: false,
        startFailure: null,
        ...workspace,
      },
    ],
    activeRequests: 0,
    sseStreams: 0,
    rateLimitRejected: null,
    now: 1000,
    memory: { rssBytes: 50_000_000, heapUsedBytes: 20_000_000 },
    mcpBudget: null,
    ...rest,
  };
}

const codes = (s: StatusInputs, sections: Record<string, SectionReport> | null = null) =>
  daemonStatus(s, sections && { sections }).issues.map((i) => [i.code, i.severity, ...(i.section ? [i.section] : [])]);

const available = (status: "ok" | "warning" | "error"): SectionReport => ({ status, durationMs: 1, summary: {}, data: {} });
const unavailable = (kind: "timeout" | "error"): SectionReport => ({ status: "unavailable", durationMs: 1, error: { kind, message: "boom" } });

describe("issue codes", () => {
  test("an idle daemon has none, in either detail", async () => {
    const s = await inputs([]);
    expect(codes(s)).toEqual([]);
    expect(codes(s, { env: available("ok"), preflight: available("warning") })).toEqual([]);
  });

  test("session_capacity_high warns from 80% of --max-sessions, and of --max-total-sessions", async () => {
    expect(codes(await inputs(["--max-sessions", "10"], { sessions: 7 }))).toEqual([]);
    expect(codes(await inputs(["--max-sessions", "10"], { sessions: 8 }))).toEqual([["session_capacity_high", "warning"]]);
    expect(codes(await inputs(["--max-sessions", "10"], { sessions: 10 }))).toEqual([["session_capacity_high", "warning"]]);
    expect(codes(await inputs(["--max-sessions", "0", "--max-total-sessions", "10"], { sessions: 8 }))).toEqual([["session_capacity_high", "warning"]]);
    expect(codes(await inputs(["--max-sessions", "0", "--max-total-sessions", "0"], { sessions: 1000 }))).toEqual([]);
  });

  test("connection_capacity_high counts requests and streams against --max-connections", async () => {
    expect(codes(await inputs(["--max-connections", "10"], { activeRequests: 3, sseStreams: 4 }))).toEqual([]);
    expect(codes(await inputs(["--max-connections", "10"], { activeRequests: 4, sseStreams: 4 }))).toEqual([["connection_capacity_high", "warning"]]);
    expect(codes(await inputs(["--max-connections", "10"], { activeRequests: 5, sseStreams: 5 }))).toEqual([["connection_capacity_high", "warning"]]);
  });

  test("pending_permissions warns while a vote is awaited", async () => {
    expect(codes(await inputs([], { pendingPermissions: 2 }))).toEqual([["pending_permissions", "warning"]]);
  });

  test("acp_channel_down is an error while a workspace has sessions and no live channel", async () => {
    expect(codes(await inputs([], { sessions: 1, workspace: { channelLive: false } }))).toEqual([["acp_channel_down", "error"]]);
    expect(codes(await inputs([], { sessions: 1, workspace: { channelLive: true } }))).toEqual([]);
    expect(codes(await inputs([], { sessions: 0, workspace: { channelLive: false } }))).toEqual([]);
  });

  test("rate_limit_hits warns once rate limiting has rejected something", async () => {
    expect(codes(await inputs(["--rate-limit"], { rateLimitRejected: { prompt: 0, mutation: 0, read: 3 } }))).toEqual([["rate_limit_hits", "warning"]]);
    expect(codes(await inputs(["--rate-limit"], { rateLimitRejected: { prompt: 0, mutation: 0, read: 0 } }))).toEqual([]);
  });

  test("daemon_runtime_starting warns while the agent starts; daemon_runtime_failed is an error after a failed start", async () => {
    expect(codes(await inputs([], { workspace: { startInProgress: true } }))).toEqual([["daemon_runtime_starting", "warning"]]);
    const failed = await inputs([], { workspace: { startFailure: { code: "init_timeout", error: "no answer" } } });
    expect(codes(failed)).toEqual([["daemon_runtime_failed", "error"]]);
    expect(daemonStatus(failed, null).issues[0]!.message).toContain("init_timeout");
    // A new start after a failure is reported as starting, not failed.
    expect(codes(await inputs([], { workspace: { startInProgress: true, startFailure: { code: "init_timeout", error: "x" } } }))).toEqual([["daemon_runtime_starting", "warning"]]);
  });

  test("agent_unresponsive warns for RECYCLE_ISSUE_MS after an unresponsive agent was restarted, naming when and why", async () => {
    const lastRecycle = { at: 1000, message: "the agent stopped answering: 3 requests in a row timed out" };
    const recent = await inputs([], { now: 1000 + RECYCLE_ISSUE_MS - 1, workspace: { lastRecycle } });
    expect(codes(recent)).toEqual([["agent_unresponsive", "warning"]]);
    expect(daemonStatus(recent, null).issues[0]!.message).toContain(`${new Date(1000).toISOString()} the agent was restarted: the agent stopped answering`);
    expect(codes(await inputs([], { now: 1000 + RECYCLE_ISSUE_MS, workspace: { lastRecycle } }))).toEqual([]);
  });

  test.each<[string, McpBudgetState | null, string[][]]>([
    ["no budget state", null, []],
    ["half the budget", { liveCount: 2, budget: 4, refusedCount: 0, mode: "enforce" }, []],
    ["75% of the budget", { liveCount: 3, budget: 4, refusedCount: 0, mode: "enforce" }, [["mcp_budget_warning", "warning", "mcp"]]],
    ["the whole budget", { liveCount: 4, budget: 4, refusedCount: 0, mode: "enforce" }, [["mcp_budget_exhausted", "error", "mcp"]]],
    ["a refused client", { liveCount: 1, budget: 4, refusedCount: 1, mode: "enforce" }, [["mcp_budget_exhausted", "error", "mcp"]]],
    ["warn mode over the budget", { liveCount: 5, budget: 4, refusedCount: 0, mode: "warn" }, [["mcp_budget_exhausted", "error", "mcp"]]],
    ["mode off", { liveCount: 9, budget: 4, refusedCount: 2, mode: "off" }, []],
    ["no budget configured", { liveCount: 9, budget: null, refusedCount: 0, mode: "enforce" }, []],
  ])("MCP budget: %s", async (_, mcpBudget, expected) => {
    expect(codes(await inputs([], { mcpBudget }))).toEqual(expected);
  });

  test("workspace_status_unavailable warns once per unavailable section, in full only", async () => {
    const s = await inputs([]);
    expect(codes(s, { env: unavailable("timeout"), preflight: available("ok"), mcp: unavailable("error") })).toEqual([
      ["workspace_status_unavailable", "warning", "env"],
      ["workspace_status_unavailable", "warning", "mcp"],
    ]);
    expect(codes(s)).toEqual([]);
  });

  test("preflight_error is an error when a preflight cell is", async () => {
    const s = await inputs([]);
    expect(codes(s, { env: available("error"), preflight: available("error") })).toEqual([["preflight_error", "error", "preflight"]]);
    expect(codes(s, { preflight: available("warning") })).toEqual([]);
  });

  test("the snapshot's status is the roll-up of its issues", async () => {
    const s = await inputs(["--max-sessions", "10"], { sessions: 10, pendingPermissions: 1 });
    const snap = daemonStatus(s, null);
    expect(snap.status).toBe("warning");
    expect(snap.issues.map((i) => i.code)).toEqual(["session_capacity_high", "pending_permissions"]);
    expect(daemonStatus({ ...s, workspaces: [{ ...s.workspaces[0]!, channelLive: false }] }, null).status).toBe("error");
  });
});

describe("snapshot", () => {
  test("memory that could not be read is reported as unknown with a warning, never a failure", async () => {
    const readable = daemonStatus(await inputs([]), null);
    expect(readable.runtime.memory).toEqual({ rssBytes: 50_000_000, heapUsedBytes: 20_000_000 });
    expect(readable.issues).toEqual([]);
    const unreadable = daemonStatus(await inputs([], { memory: null }), { sections: {} });
    expect(unreadable.runtime.memory).toEqual({ rssBytes: null, heapUsedBytes: null });
    expect(unreadable.issues.map((i) => [i.code, i.severity])).toEqual([["process_memory_unavailable", "warning"]]);
    expect(unreadable.status).toBe("warning");
  });

  test("uptime is the time since the process started, as of the snapshot", async () => {
    const snap = daemonStatus(await inputs([], { now: 61_000, daemon: { id: "daemon:1", pid: 1, processStartedAt: 1_000, listenerReadyAt: 1_040 } }), null);
    expect(snap.daemon.uptimeMs).toBe(60_000);
    expect(snap.generatedAt).toBe(new Date(61_000).toISOString());
    expect(snap.daemon.startup).toEqual({ processStartedAt: new Date(1_000).toISOString(), listenerReadyAt: new Date(1_040).toISOString(), processToListenMs: 40 });
  });

  test("summary has no full sections and no log; full has both", async () => {
    const s = await inputs([]);
    const summary = daemonStatus(s, null);
    expect(summary.detail).toBe("summary");
    expect("full" in summary || "log" in summary || "workspaces" in summary).toBe(false);
    const sections = { env: available("ok") };
    const full = daemonStatus(s, { sections });
    expect(full.detail).toBe("full");
    expect(full.full).toEqual({ workspace: sections });
    expect(full.log).toMatchObject({ destination: "stderr" });
  });
});
