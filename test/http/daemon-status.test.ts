/**
 * `GET /daemon/status` (spec "Daemon status snapshot"): summary and full shapes, `invalid_detail`,
 * the issue roll-up over HTTP, and nothing secret in either detail level.
 */
import { describe, expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "status-token-5e2a";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

type Json = Record<string, any>;

async function status(args: string[], query = "", env: Record<string, string> = {}): Promise<{ body: Json; text: string; workspace: string }> {
  await using d = await startDaemon(args, { env });
  const res = await d.fetch(`/daemon/status${query}`, { headers: AUTH });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  const text = await res.text();
  return { body: JSON.parse(text) as Json, text, workspace: d.workspace };
}

describe("summary (the default)", () => {
  test("has the spec's top level and sections", async () => {
    const { body, workspace } = await status([]);
    expect(body.v).toBe(1);
    expect(body.detail).toBe("summary");
    expect(new Date(body.generatedAt).toISOString()).toBe(body.generatedAt);
    expect(body.status).toBe("ok");
    expect(body.issues).toEqual([]);

    expect(body.daemon).toMatchObject({ pid: process.pid, mode: "http-bridge", workspaceCwd: workspace, version: "0.0.0-test" });
    expect(typeof body.daemon.daemonId).toBe("string");

    expect(body.security).toEqual({
      tokenConfigured: false,
      requireAuth: false,
      loopbackBind: true,
      allowOriginConfigured: false,
      allowOriginMode: "none",
      sessionShellCommandEnabled: false,
    });

    expect(body.limits).toMatchObject({
      maxSessions: 32,
      maxPendingPromptsPerSession: 5,
      eventRingSize: 8000,
      promptDeadlineMs: null,
      writerIdleTimeoutMs: null,
      channelIdleTimeoutMs: 0,
      sessionIdleTimeoutMs: 1_800_000,
      acpConnectionCap: 64,
    });
    expect(Number.isInteger(body.limits.listenerMaxConnections)).toBe(true);

    expect(body.runtime.sessions.active).toBe(0);
    expect(body.runtime.permissions).toEqual({ pending: 0, policy: "first-responder" });
    expect(body.runtime.channel.live).toBe(false);
    expect(body.runtime.transport.restSseActive).toBe(0);
    expect(Object.keys(body.runtime.transport.acp).sort()).toEqual(
      ["connectionStreams", "connections", "enabled", "pendingClientRequests", "sessionStreams", "sseStreams", "wsStreams"].sort(),
    );
  });

  test("uptimeMs is the time since the daemon started, and grows", async () => {
    const beforeStart = Date.now();
    await using d = await startDaemon();
    const afterStart = Date.now();
    const read = async () => {
      const sent = Date.now();
      const body = (await (await d.fetch("/daemon/status")).json()) as Json;
      return { body, sent, received: Date.now() };
    };
    const first = await read();
    // The snapshot is taken between sending and receiving, the start between the two marks.
    expect(first.body.daemon.uptimeMs).toBeGreaterThanOrEqual(first.sent - afterStart);
    expect(first.body.daemon.uptimeMs).toBeLessThanOrEqual(first.received - beforeStart);
    expect(first.body.daemon.uptimeMs).toBe(Date.parse(first.body.generatedAt) - Date.parse(first.body.daemon.startup.processStartedAt));

    await until(() => Date.now() >= first.received + 25, 1000, "the clock to move on");
    const second = await read();
    expect(second.body.daemon.uptimeMs - first.body.daemon.uptimeMs).toBeGreaterThanOrEqual(25);
    expect(second.body.daemon.startup.processStartedAt).toBe(first.body.daemon.startup.processStartedAt);
  });

  test("memory use is reported while it can be read", async () => {
    const { body } = await status([]);
    expect(body.runtime.memory.rssBytes).toBeGreaterThan(0);
    expect(body.runtime.memory.heapUsedBytes).toBeGreaterThan(0);
  });

  test("limits and security follow the flags", async () => {
    const { body } = await status([
      "--token",
      TOKEN,
      "--require-auth",
      "--allow-origin",
      "*",
      "--max-sessions",
      "7",
      "--prompt-deadline-ms",
      "1234",
      "--writer-idle-timeout-ms",
      "4321",
      "--event-ring-size",
      "64",
    ]);
    expect(body.security).toMatchObject({ tokenConfigured: true, requireAuth: true, allowOriginConfigured: true, allowOriginMode: "any" });
    expect(body.limits).toMatchObject({ maxSessions: 7, promptDeadlineMs: 1234, writerIdleTimeoutMs: 4321, eventRingSize: 64 });
  });

  test("an allowlist reports its mode, not its patterns", async () => {
    const { body, text } = await status(["--token", TOKEN, "--allow-origin", "https://hidden-ui.example"]);
    expect(body.security.allowOriginMode).toBe("allowlist");
    expect(text).not.toContain("hidden-ui");
  });

  test("omits the log destination", async () => {
    const { body } = await status([]);
    expect(body.log).toBeUndefined();
    expect(JSON.stringify(body)).not.toMatch(/"log(Path|File)?":/);
  });
});

describe("full", () => {
  test("has the same sections, detail full, and may add the log", async () => {
    const { body } = await status([], "?detail=full");
    expect(body.detail).toBe("full");
    for (const key of ["v", "generatedAt", "status", "issues", "daemon", "security", "limits", "runtime"]) expect(body).toHaveProperty(key);
    expect(body.log).toBeDefined();
  });

  test("reads the env and preflight sections as their routes answer them", async () => {
    await using d = await startDaemon();
    const body = (await (await d.fetch("/daemon/status?detail=full")).json()) as Json;
    for (const name of ["env", "preflight"]) {
      const route = (await (await d.fetch(`/workspace/${name}`)).json()) as Json;
      const section = body.full.workspace[name];
      expect(["ok", "warning"]).toContain(section.status);
      expect(Number.isInteger(section.durationMs)).toBe(true);
      expect(section.data).toEqual(route);
      expect(section.summary).toEqual({ initialized: false, acpChannelLive: false, cellsCount: route.cells.length });
    }
  });
});

describe("invalid detail", () => {
  test.each(["?detail=verbose", "?detail=FULL", "?detail=", "?detail=summary,full", "?detail=verbose&detail=bogus"])(
    "%s is 400 invalid_detail",
    async (query) => {
      await using d = await startDaemon();
      const res = await d.fetch(`/daemon/status${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual({ error: "detail must be one of: summary, full", code: "invalid_detail" });
    },
  );
});

describe("roll-up over HTTP", () => {
  test("a warning-severity issue makes the status warning", async () => {
    // With room for one request, the status request itself fills the listener.
    const { body } = await status(["--max-connections", "1"]);
    expect(body.issues).toEqual([expect.objectContaining({ code: "connection_capacity_high", severity: "warning" })]);
    expect(body.status).toBe("warning");
  });

  test("rate-limit hits are a warning", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-mutation", "1"]);
    await d.fetch("/x", { method: "POST" });
    await d.fetch("/x", { method: "POST" });
    const body = (await (await d.fetch("/daemon/status")).json()) as Json;
    expect(body.issues.map((i: Json) => [i.code, i.severity])).toEqual([["rate_limit_hits", "warning"]]);
    expect(body.status).toBe("warning");
  });

  test("an error-severity issue makes the status error", async () => {
    // An agent entry that does not exist: preflight says so in full.
    const { body } = await status([], "?detail=full", { SVC_CLI_ENTRY: "/nonexistent/agent-entry.js" });
    expect(body.issues).toEqual([expect.objectContaining({ code: "preflight_error", severity: "error", section: "preflight" })]);
    expect(body.status).toBe("error");
  });
});

describe("nothing secret", () => {
  test.each(["", "?detail=full"])("the token never appears (%s), from flag or env", async (query) => {
    for (const [args, env] of [
      [["--token", TOKEN], {}],
      [[], { SVC_SERVER_TOKEN: TOKEN }],
    ] as [string[], Record<string, string>][]) {
      const { text, body } = await status(args, query, env);
      expect(text).not.toContain(TOKEN);
      expect(body.security.tokenConfigured).toBe(true);
    }
  });
});
