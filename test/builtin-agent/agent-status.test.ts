/**
 * The built-in agent's `svc/status/*` and `svc/control/*` methods in qwen's shapes (spec
 * acp-agents §4), and its MCP budget notifications. Secrets never appear in a status payload.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/until.ts";
import { rpcError, startAgent, type AgentHandle } from "./agent-client.ts";

const SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const hostSettings = join(process.env.SVC_HOME!, "settings.json");
const SECRET_ENV_VALUE = "mcp-secret-value-123";

/** Writes $SVC_HOME/settings.json (read by the agent at its start, and again by an MCP reload). */
const hostSettingsAre = (doc: Record<string, unknown>) => writeFileSync(hostSettings, JSON.stringify(doc));
const stdioServer = (description?: string) => ({ command: process.execPath, args: [SERVER], env: { MCP_TEST_TOKEN: SECRET_ENV_VALUE }, ...(description ? { description } : {}) });

afterEach(() => rmSync(hostSettings, { force: true }));

type Json = Record<string, unknown>;
const status = (a: AgentHandle, what: string) => a.agent.request<Json>(`svc/status/workspace/${what}`, { cwd: a.workspace });
const sessionStatus = (a: AgentHandle, what: string, sessionId: string, extra: Json = {}) => a.agent.request<Json>(`svc/status/session/${what}`, { sessionId, ...extra });
const control = (a: AgentHandle, what: string, params: Json) => a.agent.request<Json>(`svc/control/workspace/${what}`, params);
const offeredTools = (request: unknown) => ((request as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);
const toolResults = (requests: unknown[]) =>
  ((requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

/** Fails when a payload carries a secret: the model key, its variable name, the model's base URL, an MCP env value or command. */
function expectNoSecrets(a: AgentHandle, payload: unknown): void {
  const text = JSON.stringify(payload);
  for (const secret of ["test-key", "OPENAI_API_KEY", a.model.baseUrl, SECRET_ENV_VALUE, SERVER]) expect(text).not.toContain(secret);
}

describe("svc/status: workspace", () => {
  test("mcp: not_started before discovery; initialize starts it once; cells per server without secrets; budgets empty under mode off", async () => {
    hostSettingsAre({ mcpServers: { docs: stdioServer("Project docs") } });
    await using a = await startAgent();
    const before = await status(a, "mcp");
    expect(before).toMatchObject({ v: 1, workspaceCwd: a.workspace, initialized: true, discoveryState: "not_started", budgetMode: "off", budgets: [], clientCount: 0 });
    expect(before.servers).toEqual([{ kind: "mcp_server", name: "docs", transport: "stdio", disabled: false, description: "Project docs", status: "not_started", mcpStatus: "disconnected" }]);
    expect(before).not.toHaveProperty("clientBudget");

    expect(await control(a, "mcp/initialize", { cwd: a.workspace })).toEqual({ accepted: true });
    expect(await control(a, "mcp/initialize", { cwd: a.workspace })).toEqual({ accepted: false });
    const after = await until(async () => {
      const s = await status(a, "mcp");
      return s.discoveryState === "completed" ? s : null;
    }, 15_000, "discovery to complete");
    expect(after.servers).toEqual([{ kind: "mcp_server", name: "docs", transport: "stdio", disabled: false, description: "Project docs", status: "ok", mcpStatus: "connected", entryCount: 1 }]);
    expect(after.clientCount).toBe(1);
    expectNoSecrets(a, after);
    const tools = await status(a, "tools");
    expect((tools.tools as Json[]).map((t) => t.name)).toContain("mcp__docs__echo");
  });

  test("mcp under an enforced budget: the refused server's cell and the budget cell say so", async () => {
    hostSettingsAre({ mcpServers: { first: stdioServer(), second: stdioServer() } });
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "1" } });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hi");
    const snapshot = await status(a, "mcp");
    expect(snapshot).toMatchObject({ discoveryState: "completed", clientCount: 1, clientBudget: 1, budgetMode: "enforce" });
    expect((snapshot.servers as Json[])[1]).toEqual({
      kind: "mcp_server",
      name: "second",
      transport: "stdio",
      disabled: false,
      status: "error",
      mcpStatus: "disconnected",
      errorKind: "budget_exhausted",
      disabledReason: "budget",
      hint: "Raise --mcp-client-budget or remove servers from mcpServers config.",
    });
    expect(snapshot.budgets).toEqual([
      { kind: "mcp_budget", scope: "session", status: "error", errorKind: "budget_exhausted", hint: "Raise --mcp-client-budget or remove servers from mcpServers config.", liveCount: 1, budget: 1, mode: "enforce", refusedCount: 1 },
    ]);
  });

  test("mcp budget cell: warning at 75 % of the budget live", async () => {
    hostSettingsAre({ mcpServers: { a1: stdioServer(), a2: stdioServer(), a3: stdioServer() } });
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "4", SVC_SERVE_MCP_BUDGET_MODE: "warn" } });
    await control(a, "mcp/initialize", { cwd: a.workspace });
    const snapshot = await until(async () => {
      const s = await status(a, "mcp");
      return s.discoveryState === "completed" ? s : null;
    }, 15_000, "discovery to complete");
    expect(snapshot.budgets).toEqual([{ kind: "mcp_budget", scope: "session", status: "warning", hint: "Live MCP clients are above 75% of the configured budget.", liveCount: 3, budget: 4, mode: "warn", refusedCount: 0 }]);
  });

  test("skills is empty; providers groups models by wire dialect with no base URL, key or variable name", async () => {
    await using a = await startAgent();
    expect(await status(a, "skills")).toEqual({ v: 1, workspaceCwd: a.workspace, initialized: true, skills: [] });
    const providers = await status(a, "providers");
    expect(providers).toEqual({
      v: 1,
      workspaceCwd: a.workspace,
      initialized: true,
      current: { authType: "openai-compatible", modelId: "openai/mock-model" },
      providers: [
        {
          kind: "model_provider",
          status: "ok",
          authType: "openai-compatible",
          current: true,
          models: [{ modelId: "openai/mock-model", baseModelId: "mock-model", name: "mock-model", description: null, contextLimit: 128000, isCurrent: true, isRuntime: false }],
        },
      ],
    });
    expectNoSecrets(a, providers);
  });

  test("a session's model state carries no base URL either", async () => {
    await using a = await startAgent();
    const created = await a.newSession();
    expectNoSecrets(a, created);
    expectNoSecrets(a, await sessionStatus(a, "context", created.sessionId));
  });

  test("resource reports the agent's RSS and CPU; a request for another directory is refused", async () => {
    await using a = await startAgent();
    const resource = await status(a, "resource");
    expect(Object.keys(resource).sort()).toEqual(["cpuPercent", "rssBytes"]);
    expect(resource.rssBytes as number).toBeGreaterThan(1024 * 1024);
    expect(resource.cpuPercent as number).toBeGreaterThanOrEqual(0);
    for (const what of ["mcp", "skills", "providers", "tools", "resource", "preflight"]) {
      expect((await rpcError(a.agent.request(`svc/status/workspace/${what}`, { cwd: "/" }))).code).toBe(-32602);
      expect((await rpcError(a.agent.request(`svc/status/workspace/${what}`, {}))).code).toBe(-32602);
    }
  });
});

describe("svc/status: session", () => {
  test("context_usage: the estimate of the next request before a round, then the model's own count", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    const before = await sessionStatus(a, "context_usage", sessionId, { detail: false });
    expect(before).toMatchObject({ v: 1, sessionId, workspaceCwd: a.workspace, usage: { modelName: "openai/mock-model", contextWindowSize: 128000, isEstimated: true, compactions: 0 } });
    // Nothing sent yet, but the next request carries the system prompt and the tool specs.
    const estimate = before.usage as { totalTokens: number; breakdown: Record<string, number> };
    expect(estimate.breakdown.systemPrompt).toBeGreaterThan(100);
    expect(estimate.breakdown.builtinTools).toBeGreaterThan(100);
    const { systemPrompt, builtinTools, mcpTools, memoryFiles, messages } = estimate.breakdown as Record<"systemPrompt" | "builtinTools" | "mcpTools" | "memoryFiles" | "messages", number>;
    expect(estimate.totalTokens).toBe(systemPrompt + builtinTools + mcpTools + memoryFiles + messages);
    await a.turn(sessionId, "hello");
    const after = await sessionStatus(a, "context_usage", sessionId, { detail: false });
    const usage = after.usage as { totalTokens: number; isEstimated: boolean; breakdown: Record<string, unknown> };
    // The mock reports 10 prompt + 5 completion tokens.
    expect(usage.totalTokens).toBe(15);
    expect(usage.isEstimated).toBe(false);
    // A reply's room (the output limit, at most a quarter of the window) is not free space.
    const reserve = usage.breakdown.autocompactBuffer as number;
    expect(reserve).toBeGreaterThan(0);
    expect(usage.breakdown.freeSpace).toBe(128000 - 15 - reserve);
    expect(usage.breakdown.thresholds).toEqual({ warn: Math.floor((128000 - reserve) * 0.6), auto: Math.floor((128000 - reserve) * 0.7), hard: 128000 - reserve, effectiveWindow: 128000 - reserve });
    expect(usage.breakdown.currentTier).toBe("safe");
    expect(Object.keys(usage.breakdown).sort()).toEqual(["autocompactBuffer", "builtinTools", "cachedTokens", "currentTier", "freeSpace", "mcpTools", "memoryFiles", "messages", "skills", "startupContext", "systemPrompt", "thresholds", "unattributed"]);
    expect(after.formattedText).toContain("15 of 128000 tokens");
  });

  test("supported_commands is the published list; tasks is empty; stats count prompts, tokens and tool calls", async () => {
    await using a = await startAgent({ files: { "a.txt": "x\n" }, approvalMode: "default" });
    const { sessionId } = await a.newSession();
    const published = await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "available_commands_update");
    const commands = await sessionStatus(a, "supported_commands", sessionId);
    // No skills: the built-in agent has none, and says so with an empty list (the reference's clients map it).
    expect(commands).toEqual({ v: 1, sessionId, availableCommands: (published as { availableCommands: unknown[] }).availableCommands, availableSkills: [] });
    const tasks = await sessionStatus(a, "tasks", sessionId);
    expect(tasks).toMatchObject({ v: 1, sessionId, workspaceCwd: a.workspace, tasks: [] });
    expect(typeof tasks.now).toBe("number");

    a.onPermission = () => ({ outcome: "selected", optionId: "cancel" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "read_file", args: { file_path: "a.txt" } }, { name: "write_file", args: { file_path: "b.txt", content: "y" } }] });
    await a.turn(sessionId, "go");
    const stats = (await sessionStatus(a, "stats", sessionId)) as { promptCount: number; models: Json; tools: { totalCalls: number; totalSuccess: number; totalFail: number; byName: Record<string, Json> } };
    expect(stats.promptCount).toBe(1);
    expect(stats.models["openai/mock-model"]).toMatchObject({ api: { totalRequests: 2, totalErrors: 0 }, tokens: { prompt: 20, candidates: 10, total: 30 } });
    expect(stats.tools).toMatchObject({ totalCalls: 2, totalSuccess: 1, totalFail: 1 });
    expect(stats.tools.byName.read_file).toMatchObject({ count: 1, success: 1, decisions: { auto_accept: 1, accept: 0, reject: 0 } });
    expect(stats.tools.byName.write_file).toMatchObject({ count: 1, fail: 1, decisions: { reject: 1 } });
    expect(await sessionStatus(a, "lsp", sessionId)).toMatchObject({ v: 1, sessionId, workspaceCwd: a.workspace, enabled: false, servers: [] });
    const resources = await sessionStatus(a, "resources", sessionId);
    expect(resources).toMatchObject({ v: 1, sessionId, workspaceCwd: a.workspace, skills: { skills: [] }, mcp: { discoveryState: "completed", servers: [], budgets: [] } });
    for (const what of ["context_usage", "supported_commands", "tasks", "stats", "lsp", "resources"]) expect((await rpcError(sessionStatus(a, what, "nope"))).code).toBe(-32002);
  });
});

describe("svc/control: tools", () => {
  test("tools/enable applies at once: a disabled tool is not offered, refused if called, and listed as disabled", async () => {
    await using a = await startAgent({ files: { "a.txt": "x\n" } });
    const { sessionId } = await a.newSession();
    expect(await control(a, "tools/enable", { cwd: a.workspace, name: "read_file", enabled: false })).toEqual({ toolName: "read_file", enabled: false });
    const listed = (await status(a, "tools")).tools as Array<{ name: string; enabled: boolean }>;
    expect(listed.find((t) => t.name === "read_file")?.enabled).toBe(false);
    expect(listed.find((t) => t.name === "grep")?.enabled).toBe(true);
    a.model.enqueue({ kind: "tools", calls: [{ name: "read_file", args: { file_path: "a.txt" } }] });
    await a.turn(sessionId, "read");
    expect(offeredTools(a.model.requests[0])).not.toContain("read_file");
    expect(toolResults(a.model.requests)[0]).toContain("read_file is disabled");
    await control(a, "tools/enable", { cwd: a.workspace, name: "read_file", enabled: true });
    await a.turn(sessionId, "again");
    expect(offeredTools(a.model.requests.at(-1))).toContain("read_file");
    expect((await rpcError(control(a, "tools/enable", { cwd: a.workspace, name: "read_file", enabled: "no" }))).code).toBe(-32602);
    expect((await rpcError(control(a, "tools/enable", { cwd: a.workspace, name: "", enabled: false }))).code).toBe(-32602);
    expect((await rpcError(control(a, "tools/enable", { cwd: "/", name: "grep", enabled: false }))).code).toBe(-32602);
  });

  test("tools.disabled from the settings is honoured at start; a trusted workspace's list wins over the host's", async () => {
    hostSettingsAre({ tools: { disabled: ["grep", "glob"] } });
    await using a = await startAgent({ trusted: true, workspaceSettings: { tools: { disabled: ["run_shell_command"] } } });
    const listed = (await status(a, "tools")).tools as Array<{ name: string; enabled: boolean }>;
    expect(listed.filter((t) => !t.enabled).map((t) => t.name)).toEqual(["run_shell_command"]);
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hi");
    const offered = offeredTools(a.model.requests[0]);
    expect(offered).not.toContain("run_shell_command");
    expect(offered).toContain("grep");
  });
});

test("an untrusted workspace's tools.disabled only adds to the host's list", async () => {
  hostSettingsAre({ tools: { disabled: ["grep"] } });
  await using a = await startAgent({ workspaceSettings: { tools: { disabled: ["glob"] } } });
  const listed = (await status(a, "tools")).tools as Array<{ name: string; enabled: boolean }>;
  expect(listed.filter((t) => !t.enabled).map((t) => t.name)).toEqual(["glob", "grep"]);
});

describe("svc/control: MCP", () => {
  test("restart reconnects a server; an unknown one is mcp_server_not_found; a refused one is skipped with budget_would_exceed", async () => {
    hostSettingsAre({ mcpServers: { first: stdioServer(), second: stdioServer() } });
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "1" }, trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "discover");
    const restarted = await control(a, "mcp/restart", { serverName: "first" });
    expect(restarted).toMatchObject({ serverName: "first", restarted: true });
    expect(typeof restarted.durationMs).toBe("number");
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__first__echo", args: { text: "after restart" } }] });
    await a.turn(sessionId, "use it");
    expect(toolResults(a.model.requests)[0]).toBe("echo: after restart");

    expect(await control(a, "mcp/restart", { serverName: "second" })).toEqual({ serverName: "second", restarted: false, skipped: true, reason: "budget_would_exceed" });
    const unknown = await rpcError(control(a, "mcp/restart", { serverName: "ghost" }));
    expect(unknown.code).toBe(-32004);
    expect(unknown.data).toEqual({ errorKind: "mcp_server_not_found", serverName: "ghost" });
    expect((await rpcError(control(a, "mcp/restart", {}))).code).toBe(-32602);
  });

  test("a server that fails: its cell says so without its error text, and a restart that does not connect is mcp_restart_failed", async () => {
    hostSettingsAre({ mcpServers: { broken: { command: "/bin/false", env: { MCP_TEST_TOKEN: SECRET_ENV_VALUE } } } });
    await using a = await startAgent();
    await control(a, "mcp/initialize", { cwd: a.workspace });
    const snapshot = await until(async () => {
      const s = await status(a, "mcp");
      return s.discoveryState === "completed" ? s : null;
    }, 15_000, "discovery");
    expect((snapshot.servers as Json[])[0]).toMatchObject({ name: "broken", status: "error", mcpStatus: "disconnected", errorKind: "mcp_server_spawn_failed" });
    expect(JSON.stringify(snapshot)).not.toContain("/bin/false");
    expectNoSecrets(a, snapshot);
    const failed = await rpcError(control(a, "mcp/restart", { serverName: "broken" }));
    expect(failed.code).toBe(-32099);
    expect(failed.data).toEqual({ errorKind: "mcp_restart_failed", serverName: "broken", mcpStatus: "disconnected" });
  });

  test("reload reads the declarations again and reconnects every server", async () => {
    hostSettingsAre({ mcpServers: { first: stdioServer() } });
    await using a = await startAgent();
    await control(a, "mcp/initialize", { cwd: a.workspace });
    await until(async () => (await status(a, "mcp")).discoveryState === "completed", 15_000, "discovery");
    hostSettingsAre({ mcpServers: { first: stdioServer(), added: stdioServer() } });
    expect(await control(a, "mcp/reload", { cwd: a.workspace })).toEqual({ accepted: true });
    const snapshot = await until(async () => {
      const s = await status(a, "mcp");
      return s.discoveryState === "completed" && (s.servers as Json[]).length === 2 ? s : null;
    }, 15_000, "the reload to complete");
    expect((snapshot.servers as Json[]).map((s) => [s.name, s.mcpStatus])).toEqual([
      ["first", "connected"],
      ["added", "connected"],
    ]);
    expect((await rpcError(control(a, "mcp/reload", { cwd: a.workspace, forceReconnectAll: "yes" }))).code).toBe(-32602);
  });
});

describe("MCP budget notifications", () => {
  test("enforce: a budget_warning and a refused_batch in qwen's exact shape, to each session", async () => {
    hostSettingsAre({ mcpServers: { first: stdioServer(), second: stdioServer() } });
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "1" } });
    const one = await a.newSession();
    const two = await a.newSession();
    await a.turn(one.sessionId, "discover");
    await until(() => a.budgetEvents.length >= 4, 5000, "the budget events");
    const warning = { kind: "budget_warning", liveCount: 1, reservedCount: 1, budget: 1, thresholdRatio: 0.75, mode: "enforce" };
    const refused = { kind: "refused_batch", refusedServers: [{ name: "second", transport: "stdio", reason: "budget_exhausted" }], budget: 1, liveCount: 1, reservedCount: 1, mode: "enforce" };
    for (const sessionId of [one.sessionId, two.sessionId]) {
      expect(a.budgetEvents.filter((e) => e.sessionId === sessionId)).toEqual([
        { v: 1, sessionId, ...warning },
        { v: 1, sessionId, ...refused },
      ]);
    }
  });

  test("the warning fires once per upward crossing: a restart does not repeat it, a reload (all released, re-armed) does; events before any session reach the first one", async () => {
    hostSettingsAre({ mcpServers: { a1: stdioServer(), a2: stdioServer(), a3: stdioServer() } });
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "4", SVC_SERVE_MCP_BUDGET_MODE: "warn" } });
    await control(a, "mcp/initialize", { cwd: a.workspace });
    await until(async () => (await status(a, "mcp")).discoveryState === "completed", 15_000, "discovery");
    const { sessionId } = await a.newSession();
    const warnings = () => a.budgetEvents.filter((e) => e.kind === "budget_warning");
    await until(() => warnings().length === 1, 5000, "the held warning");
    expect(warnings()[0]).toEqual({ v: 1, sessionId, kind: "budget_warning", liveCount: 3, reservedCount: 3, budget: 4, thresholdRatio: 0.75, mode: "warn" });

    expect(await control(a, "mcp/restart", { serverName: "a3" })).toMatchObject({ restarted: true });
    await control(a, "mcp/reload", { cwd: a.workspace });
    await until(() => warnings().length === 2, 15_000, "the warning after the reload");
    await until(async () => (await status(a, "mcp")).discoveryState === "completed", 15_000, "the reload");
    expect(warnings()).toHaveLength(2);
  });

  test("mode off never notifies", async () => {
    hostSettingsAre({ mcpServers: { first: stdioServer(), second: stdioServer() } });
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "1", SVC_SERVE_MCP_BUDGET_MODE: "off" } });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "discover");
    expect((await status(a, "mcp")).servers as Json[]).toHaveLength(2);
    expect(a.budgetEvents).toEqual([]);
    expect((await status(a, "mcp")).budgets).toEqual([]);
  });
});
