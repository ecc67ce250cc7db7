/**
 * The `svc serve` flag table through `resolveConfig`: every default (spec + protocol notes §6), the
 * environment fallbacks, flag-over-env precedence, and boot errors that name the offending flag.
 */
import { describe, expect, test } from "bun:test";
import { BootError } from "../../src/config/boot-error.ts";
import type { Config } from "../../src/config/config.ts";
import { FLAGS } from "../../src/config/flags.ts";
import { configFixture, type Env } from "../helpers/config.ts";

/** What each flag resolves to when neither the flag nor its environment variable is given. */
const DEFAULTS: Record<keyof typeof FLAGS, [string, (c: Config) => unknown, unknown]> = {
  token: ["no token", (c) => c.token, null],
  "token-file": ["no token file", (c) => c.tokenFile, null],
  "require-auth": ["auth not required", (c) => c.requireAuth, false],
  "allow-origin": ["no origin admitted", (c) => [c.origins.any, c.origins.origins.size], [false, 0]],
  hostname: ["loopback 127.0.0.1", (c) => [c.hostname, c.loopbackBind], ["127.0.0.1", true]],
  port: ["port 4170", (c) => c.port, 4170],
  agent: ["the built-in agent", (c) => [c.agent.agent, c.agent.cliEntry?.source], ["builtin", "argv"]],
  workspace: ["the current directory", (c) => c.workspace, "<cwd>"],
  "trust-workspace": ["no trust granted by the flag", (c) => c.trustWorkspace, false],
  "approval-mode": ["no approval mode given", (c) => c.approvalMode, null],
  open: ["no browser opened", (c) => c.launcher.open, false],
  "no-web": ["web UI on", (c) => c.web, true],
  "max-sessions": ["32 sessions per workspace", (c) => c.limits.maxSessions, 32],
  "max-total-sessions": ["800 sessions in total", (c) => c.limits.maxTotalSessions, 800],
  "max-workspaces": ["256 workspaces served", (c) => c.limits.maxWorkspaces, 256],
  "max-pending-prompts-per-session": ["5 pending prompts", (c) => c.limits.maxPendingPromptsPerSession, 5],
  // Notes §6 report 256 for the reference's socket cap; ours caps concurrent requests and streams.
  "max-connections": ["4096 concurrent requests", (c) => c.limits.listenerMaxConnections, 4096],
  "event-ring-size": ["an 8000-event replay ring", (c) => c.limits.eventRingSize, 8000],
  "mcp-client-budget": ["no MCP budget", (c) => c.mcp.clientBudget, null],
  "mcp-budget-mode": ["budget mode off without a budget", (c) => c.mcp.budgetMode, "off"],
  "prompt-deadline-ms": ["no prompt deadline (null)", (c) => c.limits.promptDeadlineMs, null],
  "writer-idle-timeout-ms": ["no writer idle timeout (null)", (c) => c.limits.writerIdleTimeoutMs, null],
  "rate-limit": ["rate limiting off", (c) => c.rateLimit.enabled, false],
  "rate-limit-prompt": ["10 prompts per window", (c) => c.rateLimit.prompt, 10],
  "rate-limit-mutation": ["30 mutations per window", (c) => c.rateLimit.mutation, 30],
  "rate-limit-read": ["120 reads per window", (c) => c.rateLimit.read, 120],
  "rate-limit-window-ms": ["a 60 s window", (c) => c.rateLimit.windowMs, 60_000],
  "session-idle-timeout-ms": ["30 min session idle timeout", (c) => c.limits.sessionIdleTimeoutMs, 1_800_000],
  "session-reap-interval-ms": ["a 60 s reap interval", (c) => c.limits.sessionReapIntervalMs, 60_000],
  "channel-idle-timeout-ms": ["children reaped when work drains (0)", (c) => c.limits.channelIdleTimeoutMs, 0],
  "permission-response-timeout-ms": ["permissions wait forever (0)", (c) => c.limits.permissionResponseTimeoutMs, 0],
  "initialize-timeout-ms": ["10 s initialize timeout", (c) => c.limits.initTimeoutMs, 10_000],
  "session-restore-timeout-ms": ["60 s restore timeout", (c) => c.limits.sessionRestoreTimeoutMs, 60_000],
  "child-heap-mode": ["heap mode observe", (c) => c.childHeapMode, "observe"],
  "memory-budget-mb": ["no memory budget", (c) => c.limits.memoryBudgetMb, null],
  "max-journal-bytes": ["8 MiB journal baseline, not pinned", (c) => [c.limits.maxJournalBytes, c.limits.journalPinned], [8 * 1024 * 1024, false]],
  "max-snapshot-bytes": ["256 MiB of rewind snapshots", (c) => c.limits.maxSnapshotBytes, 256 * 1024 * 1024],
  "max-journal-events": ["10000-event journal baseline", (c) => c.limits.maxJournalEvents, 10_000],
  "ready-json": ["no ready JSON line", (c) => c.launcher.readyJson, false],
  "parent-pid": ["no parent watched", (c) => c.launcher.parentPid, null],
  "release-url": ["the project's release location", (c) => c.releaseUrl, null],
  "log-level": ["log level info", (c) => c.log.level, "info"],
  "log-format": ["text logs", (c) => c.log.format, "text"],
};

describe("flag defaults", () => {
  const rows = Object.entries(DEFAULTS).map(([flag, [what, read, expected]]) => [flag, what, read, expected] as const);
  test.each(rows)("--%s: %s", async (_flag, _what, read, expected) => {
    await using fx = configFixture();
    const config = fx.resolve([]);
    expect(read(config)).toEqual(expected === "<cwd>" ? fx.workspace : expected);
  });

  test("the default table covers every flag", () => {
    expect(Object.keys(DEFAULTS).sort()).toEqual(Object.keys(FLAGS).sort());
  });

  test("fixed limits not exposed as flags keep the notes' values", async () => {
    await using fx = configFixture();
    expect(fx.resolve([]).limits.acpConnectionCap).toBe(64);
  });

  test("--workspace resolves relative to the current directory", async () => {
    await using fx = configFixture();
    expect(fx.resolve(["--workspace", "."]).workspace).toBe(fx.workspace);
    expect(fx.resolve(["--workspace", "../ws"]).workspace).toBe(fx.workspace);
  });

  test("the resolved config is frozen", async () => {
    await using fx = configFixture();
    const config = fx.resolve([]);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.limits)).toBe(true);
    expect(() => ((config.limits as { maxSessions: number }).maxSessions = 1)).toThrow();
  });
});

describe("flags set their values", () => {
  const cases: [string[], (c: Config) => unknown, unknown][] = [
    [["--port", "0"], (c) => c.port, 0],
    [["--port=65535"], (c) => c.port, 65535],
    [["--hostname", "localhost"], (c) => [c.hostname, c.loopbackBind], ["localhost", true]],
    [["--hostname", "::1"], (c) => [c.hostname, c.loopbackBind], ["::1", true]],
    [["--hostname", "[::1]"], (c) => [c.hostname, c.loopbackBind], ["::1", true]],
    [["--hostname", "127.1.2.3"], (c) => c.loopbackBind, true],
    [["--no-web"], (c) => c.web, false],
    [["--open"], (c) => c.launcher.open, true],
    // Nothing to open without the UI: the flag is dropped with a warning.
    [["--open", "--no-web"], (c) => [c.launcher.open, c.warnings.some((w) => w.startsWith("--open is ignored"))], [false, true]],
    [["--max-sessions", "0"], (c) => c.limits.maxSessions, 0],
    [["--max-workspaces", "3"], (c) => c.limits.maxWorkspaces, 3],
    [["--max-total-sessions", "7"], (c) => c.limits.maxTotalSessions, 7],
    [["--max-pending-prompts-per-session", "0"], (c) => c.limits.maxPendingPromptsPerSession, 0],
    [["--event-ring-size", "16"], (c) => c.limits.eventRingSize, 16],
    [["--mcp-client-budget", "3"], (c) => [c.mcp.clientBudget, c.mcp.budgetMode], [3, "enforce"]],
    [["--mcp-client-budget", "3", "--mcp-budget-mode", "warn"], (c) => [c.mcp.clientBudget, c.mcp.budgetMode], [3, "warn"]],
    [["--mcp-budget-mode", "off"], (c) => c.mcp.budgetMode, "off"],
    [["--prompt-deadline-ms", "250"], (c) => c.limits.promptDeadlineMs, 250],
    [["--prompt-deadline-ms", "0"], (c) => c.limits.promptDeadlineMs, null],
    [["--writer-idle-timeout-ms", "900"], (c) => c.limits.writerIdleTimeoutMs, 900],
    [["--writer-idle-timeout-ms", "0"], (c) => c.limits.writerIdleTimeoutMs, null],
    [["--rate-limit", "--rate-limit-read", "3", "--rate-limit-window-ms", "1000"], (c) => [c.rateLimit.enabled, c.rateLimit.read, c.rateLimit.windowMs], [true, 3, 1000]],
    [["--session-idle-timeout-ms", "0"], (c) => c.limits.sessionIdleTimeoutMs, 0],
    [["--permission-response-timeout-ms", "1500"], (c) => c.limits.permissionResponseTimeoutMs, 1500],
    [["--child-heap-mode", "enforce"], (c) => c.childHeapMode, "enforce"],
    [["--memory-budget-mb", "64"], (c) => c.limits.memoryBudgetMb, 64],
    [["--max-journal-events", "5"], (c) => [c.limits.maxJournalEvents, c.limits.maxJournalBytes, c.limits.journalPinned], [5, 8 * 1024 * 1024, true]],
    [["--max-journal-bytes", "2048"], (c) => [c.limits.maxJournalBytes, c.limits.journalPinned], [2048, true]],
    [["--log-level", "debug", "--log-format", "json"], (c) => c.log, { level: "debug", format: "json" }],
    [["--token", "tok"], (c) => c.token, "tok"],
    [["--allow-origin", "http://localhost:5173", "--allow-origin", "http://127.0.0.1:8080"], (c) => [...c.origins.origins].sort(), ["http://127.0.0.1:8080", "http://localhost:5173"]],
  ];
  test.each(cases)("%j", async (args, read, expected) => {
    await using fx = configFixture();
    expect(read(fx.resolve(args))).toEqual(expected);
  });
});

describe("environment fallbacks", () => {
  const cases: [Env, (c: Config) => unknown, unknown][] = [
    [{ SVC_SERVER_TOKEN: "from-env" }, (c) => c.token, "from-env"],
    [{ SVC_SERVER_TOKEN: "" }, (c) => c.token, null],
    [{ SVC_SERVE_PROMPT_DEADLINE_MS: "5000" }, (c) => c.limits.promptDeadlineMs, 5000],
    [{ SVC_SERVE_PROMPT_DEADLINE_MS: "0" }, (c) => c.limits.promptDeadlineMs, null],
    [{ SVC_SERVE_WRITER_IDLE_TIMEOUT_MS: "7000" }, (c) => c.limits.writerIdleTimeoutMs, 7000],
    [{ SVC_SERVE_RATE_LIMIT: "1" }, (c) => c.rateLimit.enabled, true],
    [{ SVC_SERVE_RATE_LIMIT: "true" }, (c) => c.rateLimit.enabled, true],
    [{ SVC_SERVE_RATE_LIMIT: "0" }, (c) => c.rateLimit.enabled, false],
    [{ SVC_SERVE_RATE_LIMIT: "" }, (c) => c.rateLimit.enabled, false],
    [{ SVC_SERVE_MCP_CLIENT_BUDGET: "4" }, (c) => [c.mcp.clientBudget, c.mcp.budgetMode], [4, "enforce"]],
    [{ SVC_SERVE_NO_MCP_POOL: "1" }, (c) => c.mcp.pool, false],
    [{ SVC_SERVE_NO_MCP_POOL: "true" }, (c) => c.mcp.pool, false],
    [{ SVC_SERVE_NO_MCP_POOL: "0" }, (c) => c.mcp.pool, true],
    [{ SVC_SERVE_NO_MCP_POOL: "false" }, (c) => c.mcp.pool, true],
    [{ SVC_SERVE_NO_MCP_POOL: "" }, (c) => c.mcp.pool, true],
    [{}, (c) => c.mcp.pool, true],
  ];
  test.each(cases)("%j", async (env, read, expected) => {
    await using fx = configFixture();
    expect(read(fx.resolve([], env))).toEqual(expected);
  });

  test("variables without a flag-table entry do not set flags", async () => {
    await using fx = configFixture();
    const config = fx.resolve([], { SVC_PORT: "1", SVC_SERVE_PORT: "1", SVC_SERVE_MAX_SESSIONS: "1" });
    expect([config.port, config.limits.maxSessions]).toEqual([4170, 32]);
  });
});

describe("a flag beats its environment variable", () => {
  const cases: [string[], Env, (c: Config) => unknown, unknown][] = [
    [["--token", "flag"], { SVC_SERVER_TOKEN: "env" }, (c) => c.token, "flag"],
    [["--prompt-deadline-ms", "100"], { SVC_SERVE_PROMPT_DEADLINE_MS: "200" }, (c) => c.limits.promptDeadlineMs, 100],
    [["--prompt-deadline-ms", "0"], { SVC_SERVE_PROMPT_DEADLINE_MS: "200" }, (c) => c.limits.promptDeadlineMs, null],
    [["--writer-idle-timeout-ms", "300"], { SVC_SERVE_WRITER_IDLE_TIMEOUT_MS: "400" }, (c) => c.limits.writerIdleTimeoutMs, 300],
    [["--mcp-client-budget", "2"], { SVC_SERVE_MCP_CLIENT_BUDGET: "9" }, (c) => c.mcp.clientBudget, 2],
    [["--rate-limit"], { SVC_SERVE_RATE_LIMIT: "0" }, (c) => c.rateLimit.enabled, true],
    // The environment is not even parsed when the flag is given.
    [["--prompt-deadline-ms", "100"], { SVC_SERVE_PROMPT_DEADLINE_MS: "soon" }, (c) => c.limits.promptDeadlineMs, 100],
    [["--rate-limit"], { SVC_SERVE_RATE_LIMIT: "banana" }, (c) => c.rateLimit.enabled, true],
  ];
  test.each(cases)("%j over %j", async (args, env, read, expected) => {
    await using fx = configFixture();
    expect(read(fx.resolve(args, env))).toEqual(expected);
  });
});

describe("invalid values fail boot naming the flag", () => {
  const cases: [string[], Env, RegExp][] = [
    [["--port", "abc"], {}, /--port: "abc" is not a whole number/],
    [["--port=-5"], {}, /--port/],
    [["--port", "-1"], {}, /--port/],
    [["--port", "65536"], {}, /--port: 65536 is out of range/],
    [["--port", "1.5"], {}, /--port/],
    [["--port", "1e3"], {}, /--port/],
    [["--port", "0x10"], {}, /--port/],
    [["--port="], {}, /--port/],
    [["--port", "99999999999999999999"], {}, /--port/],
    [["--max-sessions", "-1"], {}, /--max-sessions/],
    [["--max-sessions", "lots"], {}, /--max-sessions/],
    [["--max-connections", "0"], {}, /--max-connections/],
    [["--event-ring-size", "0"], {}, /--event-ring-size/],
    [["--rate-limit-window-ms", "999"], {}, /--rate-limit-window-ms/],
    [["--rate-limit-read", "0"], {}, /--rate-limit-read/],
    [["--session-reap-interval-ms", "1"], {}, /--session-reap-interval-ms/],
    [["--prompt-deadline-ms", "2147483648"], {}, /--prompt-deadline-ms/],
    [["--max-journal-bytes", "1"], {}, /--max-journal-bytes/],
    [["--log-format", "xml"], {}, /--log-format: "xml" is not one of text, json/],
    [["--log-level", "trace"], {}, /--log-level/],
    [["--child-heap-mode", "strict"], {}, /--child-heap-mode/],
    [["--mcp-budget-mode", "ENFORCE"], {}, /--mcp-budget-mode/],
    [["--mcp-budget-mode", ""], {}, /--mcp-budget-mode/],
    [[], { SVC_SERVE_PROMPT_DEADLINE_MS: "soon" }, /--prompt-deadline-ms \(env SVC_SERVE_PROMPT_DEADLINE_MS\)/],
    [[], { SVC_SERVE_WRITER_IDLE_TIMEOUT_MS: "-1" }, /SVC_SERVE_WRITER_IDLE_TIMEOUT_MS/],
    [[], { SVC_SERVE_MCP_CLIENT_BUDGET: "many" }, /SVC_SERVE_MCP_CLIENT_BUDGET/],
    [[], { SVC_SERVE_RATE_LIMIT: "banana" }, /SVC_SERVE_RATE_LIMIT/],
    [[], { SVC_SERVE_NO_MCP_POOL: "banana" }, /SVC_SERVE_NO_MCP_POOL/],
  ];
  test.each(cases)("%j %j", async (args, env, message) => {
    await using fx = configFixture();
    const err = fx.bootError(args, env);
    expect(err).toBeInstanceOf(BootError);
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain("\n");
  });
});

describe("malformed command lines fail boot naming the problem", () => {
  const cases: [string[], RegExp][] = [
    [["--bogus"], /--bogus/],
    [["--tokne", "x"], /--tokne/],
    [["-x"], /-x/],
    [["extra"], /extra/],
    [["--port"], /--port/],
    [["--require-auth=yes"], /--require-auth/],
    [["--no-web=false"], /--no-web/],
  ];
  test.each(cases)("%j", async (args, message) => {
    await using fx = configFixture();
    const err = fx.bootError(args);
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain("\n");
  });
});
