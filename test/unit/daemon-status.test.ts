/** The daemon status roll-up and issue rules (pure). */
import { describe, expect, test } from "bun:test";
import { daemonStatus, rollUp, statusIssues, type StatusInputs, type StatusIssue } from "../../src/server/daemon-status.ts";
import { configFixture } from "../helpers/config.ts";

const issue = (severity: StatusIssue["severity"]): StatusIssue => ({ code: "x", severity, message: "" });

describe("rollUp", () => {
  test.each<[StatusIssue["severity"][], string]>([
    [[], "ok"],
    [["info"], "ok"],
    [["info", "warning"], "warning"],
    [["warning", "warning"], "warning"],
    [["warning", "error", "info"], "error"],
    [["error"], "error"],
  ])("%j → %s", (severities, expected) => {
    expect(rollUp(severities.map(issue))).toBe(expected as ReturnType<typeof rollUp>);
  });
});

describe("statusIssues", () => {
  async function inputs(args: string[], overrides: Partial<StatusInputs> & { sessions?: number; pendingPermissions?: number } = {}): Promise<StatusInputs> {
    await using fx = configFixture();
    const { sessions = 0, pendingPermissions = 0, ...rest } = overrides;
    return {
      config: fx.resolve(args),
      daemon: { id: "daemon:1", pid: 1, processStartedAt: 0, listenerReadyAt: 10 },
      activity: { sessions, pendingPermissions, activePrompts: 0, liveChannels: 0, childPids: [] },
      activeRequests: 0,
      sseStreams: 0,
      rateLimitRejected: null,
      now: 1000,
      memory: { rssBytes: 50_000_000, heapUsedBytes: 20_000_000 },
      ...rest,
    };
  }
  const codes = (s: StatusInputs) => statusIssues(s).map((i) => [i.code, i.severity]);

  test("an idle daemon has no issues", async () => {
    expect(codes(await inputs([]))).toEqual([]);
  });

  test("session capacity warns at 80% and errors at the cap", async () => {
    expect(codes(await inputs(["--max-total-sessions", "10"], { sessions: 7 }))).toEqual([]);
    expect(codes(await inputs(["--max-total-sessions", "10"], { sessions: 8 }))).toEqual([["session_capacity_high", "warning"]]);
    expect(codes(await inputs(["--max-total-sessions", "10"], { sessions: 10 }))).toEqual([["session_capacity_high", "error"]]);
  });

  test("connection capacity counts requests and streams", async () => {
    expect(codes(await inputs(["--max-connections", "10"], { activeRequests: 4, sseStreams: 4 }))).toEqual([["connection_capacity_high", "warning"]]);
    expect(codes(await inputs(["--max-connections", "10"], { activeRequests: 5, sseStreams: 5 }))).toEqual([["connection_capacity_high", "error"]]);
  });

  test("pending permissions and rate-limit hits are informational", async () => {
    const s = await inputs(["--rate-limit"], { pendingPermissions: 2, rateLimitRejected: { prompt: 0, mutation: 0, read: 3 } });
    expect(codes(s)).toEqual([
      ["pending_permissions", "info"],
      ["rate_limit_hits", "info"],
    ]);
    expect(daemonStatus(s, "summary").status).toBe("ok");
  });

  test("memory that could not be read is reported as unknown with a warning, never a failure", async () => {
    const readable = daemonStatus(await inputs([]), "summary");
    expect(readable.runtime.memory).toEqual({ rssBytes: 50_000_000, heapUsedBytes: 20_000_000 });
    expect(readable.issues).toEqual([]);
    const unreadable = daemonStatus(await inputs([], { memory: null }), "full");
    expect(unreadable.runtime.memory).toEqual({ rssBytes: null, heapUsedBytes: null });
    expect(unreadable.issues.map((i) => [i.code, i.severity])).toEqual([["process_memory_unavailable", "warning"]]);
    expect(unreadable.status).toBe("warning");
  });

  test("uptime is the time since the process started, as of the snapshot", async () => {
    const snap = daemonStatus(await inputs([], { now: 61_000, daemon: { id: "daemon:1", pid: 1, processStartedAt: 1_000, listenerReadyAt: 1_040 } }), "summary");
    expect(snap.daemon.uptimeMs).toBe(60_000);
    expect(snap.generatedAt).toBe(new Date(61_000).toISOString());
    expect(snap.daemon.startup).toEqual({ processStartedAt: new Date(1_000).toISOString(), listenerReadyAt: new Date(1_040).toISOString(), processToListenMs: 40 });
  });

  test("the snapshot's status is the roll-up of its issues", async () => {
    const s = await inputs(["--max-total-sessions", "10"], { sessions: 10, pendingPermissions: 1 });
    const snap = daemonStatus(s, "summary");
    expect(snap.status).toBe("error");
    expect(snap.issues.map((i) => i.code)).toEqual(["session_capacity_high", "pending_permissions"]);
  });
});
