/**
 * The `svc/status/*` extension methods, in the shapes of the reference agent's `qwen/status/*` ones
 * (spec acp-agents §4.1), so the daemon's `svc` profile fills its status routes from the built-in
 * agent. Results are the HTTP envelopes (`{v: 1, workspaceCwd, initialized: true, …}`).
 *
 * Never in a result: MCP env values, headers, commands or URLs; provider base URLs, API keys or
 * the names of their variables (spec "Status cell"). A failed MCP server says only that it failed
 * (its error text, which may quote a URL or command, goes to stderr).
 *
 * Unknown sessions are `-32002`; malformed params, or a `cwd` other than the agent's workspace,
 * `-32602`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentConfig } from "../config/agent-config.ts";
import type { StatusCell } from "../workspace/status-cell.ts";
import type { AgentSession } from "./agent-session.ts";
import { AVAILABLE_COMMANDS } from "./commands.ts";
import { WARN_RATIO } from "./mcp/mcp-budget.ts";
import type { McpServers, McpServerState } from "./mcp/mcp-servers.ts";
import { allTools, isDisabled } from "./mcp/mcp-tools.ts";
import { cpuSampler } from "./cpu-sampler.ts";
import { contextUsage } from "./context-usage.ts";
import { BUILTIN_TOOLS } from "./tools/registry.ts";
import { invocable, skillCell, type SkillCatalog, type Skills } from "./skills/index.ts";

export interface StatusDeps {
  readonly config: AgentConfig;
  readonly mcp: McpServers;
  /** Tool names not offered to the model (live: the tools/enable control changes it). */
  readonly disabledTools: ReadonlySet<string>;
  readonly skills: Skills;
  readonly workspace: string;
  readonly session: (sessionId: string) => AgentSession;
  /** The session's models and modes, as `session/new` reports them. */
  readonly state: (session: AgentSession) => Record<string, unknown>;
}

/** Params parser: an object whose named fields are strings. */
export const fields =
  <K extends string>(...keys: K[]) =>
  (params: unknown): Record<K, string> => {
    const p = (params ?? {}) as Record<string, unknown>;
    for (const key of keys) if (typeof p[key] !== "string") throw acp.RequestError.invalidParams({ field: key }, `${key} must be a string`);
    return p as Record<K, string>;
  };

/** Refuses a workspace-scoped request for another directory. */
export function checkCwd(cwd: string, workspace: string): void {
  if (cwd !== workspace) throw acp.RequestError.invalidParams({ cwd }, `this agent serves the workspace ${workspace} only`);
}

const BUDGET_HINT = "Raise --mcp-client-budget or remove servers from mcpServers config.";

/** One server's `mcp_server` cell (spec "MCP snapshot"). */
function serverCell(server: McpServerState): StatusCell {
  const base = {
    kind: "mcp_server",
    name: server.config.name,
    transport: server.config.transport,
    disabled: false,
    ...(server.config.description ? { description: server.config.description } : {}),
    ...(server.config.extensionName ? { extensionName: server.config.extensionName } : {}),
  };
  switch (server.phase) {
    case "pending":
      return { ...base, status: "not_started", mcpStatus: "disconnected" };
    case "connecting":
      return { ...base, status: "warning", mcpStatus: "connecting" };
    case "connected":
      // One connection, shared by every session of this agent: the pool's single entry.
      return { ...base, status: "ok", mcpStatus: "connected", entryCount: 1 };
    case "failed":
      return { ...base, status: "error", mcpStatus: "disconnected", errorKind: "mcp_server_spawn_failed", hint: "the server did not start or list its tools; its error is in the agent's stderr (the daemon log)" };
    case "disconnected":
      return { ...base, status: "warning", mcpStatus: "disconnected", hint: `the server's connection dropped (${server.error ?? "closed"}); it reconnects on the next prompt or a reload` };
    case "refused":
      return { ...base, status: "error", mcpStatus: "disconnected", errorKind: "budget_exhausted", disabledReason: "budget", hint: BUDGET_HINT };
    case "disabled":
      return { ...base, status: "disabled", mcpStatus: "disconnected", disabled: true, disabledReason: "config", hint: "listed in mcp.excluded; POST /workspace/config/mcp/:server/enable starts it" };
  }
}

/** The `mcp_budget` cells: none under mode `off`; error when servers were refused, warning at 75 % of the budget live. */
function budgetCells(mcp: McpServers): StatusCell[] {
  const { limit, mode } = mcp.budget;
  if (mode === "off") return [];
  const live = mcp.counts().live;
  const refusedCount = mcp.status().filter((s) => s.phase === "refused").length;
  const warning = limit !== null && limit > 0 && live >= WARN_RATIO * limit;
  return [
    {
      kind: "mcp_budget",
      scope: "session",
      status: refusedCount > 0 ? "error" : warning ? "warning" : "ok",
      ...(refusedCount > 0 ? { errorKind: "budget_exhausted", hint: BUDGET_HINT } : warning ? { hint: `Live MCP clients are above ${WARN_RATIO * 100}% of the configured budget.` } : {}),
      liveCount: live,
      ...(limit === null ? {} : { budget: limit }),
      mode,
      refusedCount,
    },
  ];
}

/** `mcp_discovery`: disabled with none declared, then as discovery stands. */
function mcpCell(config: AgentConfig, mcp: McpServers): StatusCell {
  if (mcp.status().length === 0) return { kind: "mcp_discovery", locality: "acp", status: "disabled", hint: "no MCP servers are declared (mcpServers in $SVC_HOME/settings.json)" };
  if (mcp.discoveryState === "not_started") return { kind: "mcp_discovery", locality: "acp", status: "not_started", hint: "MCP servers are connected on the first prompt" };
  if (mcp.discoveryState === "in_progress") return { kind: "mcp_discovery", locality: "acp", status: "not_started", hint: "MCP discovery is in progress" };
  const servers = mcp.status().map((s) => {
    const cell = serverCell(s);
    return { name: s.config.name, status: cell.status, ...(cell.errorKind ? { errorKind: cell.errorKind } : {}), tools: s.tools.length };
  });
  const failed = servers.filter((s) => s.status === "error");
  return {
    kind: "mcp_discovery",
    locality: "acp",
    status: failed.length === 0 ? "ok" : "warning",
    detail: { discoveryState: mcp.discoveryState, servers, budgetMode: config.mcpBudget.mode, ...(config.mcpBudget.limit === null ? {} : { clientBudget: config.mcpBudget.limit }) },
    ...(failed.length ? { error: `${failed.length} MCP server(s) unavailable` } : {}),
  };
}

/** `skills`: how many were found and enabled, and how many folders could not be used (named by folder only). */
function skillsCell(catalog: SkillCatalog): StatusCell {
  const enabled = catalog.skills.filter((s) => !s.disabled).length;
  const detail = { count: catalog.skills.length, enabled, ...(catalog.problems.length ? { problems: catalog.problems.map(({ level, folder, error }) => ({ level, folder, error })) } : {}) };
  if (catalog.problems.length > 0) return { kind: "skills", locality: "acp", status: "warning", errorKind: "parse_error", error: `${catalog.problems.length} skill folder(s) could not be used`, detail };
  if (catalog.skills.length === 0) return { kind: "skills", locality: "acp", status: "disabled", hint: "no skills: add a folder with a SKILL.md under .svc/skills/ (trusted workspaces) or the data dir's skills/", detail };
  return { kind: "skills", locality: "acp", status: "ok", detail };
}

export function preflightCells(config: AgentConfig, mcp: McpServers, skills: SkillCatalog): StatusCell[] {
  const auth: StatusCell =
    config.defaultModelId === null
      ? { kind: "auth", locality: "acp", status: "error", errorKind: "auth_env_error", error: "No model is configured", hint: config.missingModelHint }
      : { kind: "auth", locality: "acp", status: "ok", detail: { modelId: config.defaultModelId } };
  return [
    auth,
    { kind: "providers", locality: "acp", status: config.models.length > 0 ? "ok" : "warning", detail: { models: config.models.map((m) => m.id) } },
    { kind: "tool_registry", locality: "acp", status: "ok", detail: { tools: [...BUILTIN_TOOLS.keys()] } },
    mcpCell(config, mcp),
    skillsCell(skills),
    { kind: "egress", locality: "acp", status: "not_started" },
  ];
}

/**
 * Providers grouped by `authType`, which is the endpoint's wire dialect (`openai-compatible`,
 * `anthropic`, `google`): OpenAI, OpenRouter, DashScope, Ollama… are all `openai-compatible`.
 */
function providers(config: AgentConfig) {
  const current = config.models.find((m) => m.id === config.defaultModelId);
  const groups = new Map<string, { kind: "model_provider"; status: "ok"; authType: string; current: boolean; models: unknown[] }>();
  for (const m of config.models) {
    let group = groups.get(m.kind);
    if (!group) groups.set(m.kind, (group = { kind: "model_provider", status: "ok", authType: m.kind, current: false, models: [] }));
    const isCurrent = m === current;
    group.current ||= isCurrent;
    group.models.push({ modelId: m.id, baseModelId: m.model, name: m.model, description: null, contextLimit: m.contextLimit, isCurrent, isRuntime: false });
  }
  return { ...(current ? { current: { authType: current.kind, modelId: current.id } } : {}), providers: [...groups.values()] };
}

/** The `workspace/mcp` snapshot (also inside a session's `resources`). */
const mcpSnapshot = (mcp: McpServers) => ({
  discoveryState: mcp.discoveryState,
  servers: mcp.status().map(serverCell),
  clientCount: mcp.counts().reserved,
  ...(mcp.budget.limit === null ? {} : { clientBudget: mcp.budget.limit }),
  budgetMode: mcp.budget.mode,
  budgets: budgetCells(mcp),
});

export function registerStatusMethods(app: acp.AgentApp, deps: StatusDeps): void {
  const { config, workspace, mcp } = deps;
  const base = { v: 1 as const, workspaceCwd: workspace, initialized: true };
  const envelope = (cwd: string) => {
    checkCwd(cwd, workspace);
    return base;
  };
  const cpu = cpuSampler();
  app
    .onRequest("svc/status/workspace/preflight", fields("cwd"), ({ params }) => {
      checkCwd(params.cwd, workspace);
      return { cells: preflightCells(config, mcp, deps.skills.catalog()) };
    })
    .onRequest("svc/status/workspace/tools", fields("cwd"), ({ params }) => ({
      ...envelope(params.cwd),
      acpChannelLive: true,
      tools: [...allTools(mcp).values()].map((t) => ({ name: t.name, displayName: t.name, description: t.description, enabled: !isDisabled(t, deps.disabledTools) })),
    }))
    .onRequest("svc/status/workspace/mcp", fields("cwd"), ({ params }) => ({ ...envelope(params.cwd), ...mcpSnapshot(mcp) }))
    .onRequest("svc/status/workspace/skills", fields("cwd"), ({ params }) => ({ ...envelope(params.cwd), skills: deps.skills.catalog().skills.map(skillCell) }))
    .onRequest("svc/status/workspace/providers", fields("cwd"), ({ params }) => ({ ...envelope(params.cwd), ...providers(config) }))
    .onRequest("svc/status/workspace/resource", fields("cwd"), ({ params }) => {
      checkCwd(params.cwd, workspace);
      return { rssBytes: process.memoryUsage.rss(), cpuPercent: cpu() };
    })
    .onRequest("svc/status/session/context", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, recovery: { kind: "clean", canContinue: true }, state: deps.state(session) };
    })
    .onRequest("svc/status/session/context_usage", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      const model = config.models.find((m) => m.id === session.modelId);
      const tools = [...allTools(mcp).values()].filter((t) => !isDisabled(t, deps.disabledTools)).map((t) => ({ ...t, builtin: BUILTIN_TOOLS.has(t.name) }));
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, ...contextUsage(session, model, tools, (params as { detail?: unknown }).detail === true) };
    })
    .onRequest("svc/status/session/supported_commands", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, availableCommands: AVAILABLE_COMMANDS, availableSkills: invocable(deps.skills.catalog()).map((s) => s.name) };
    })
    // The built-in agent runs nothing in the background (a shell command lives within its turn): no tasks.
    .onRequest("svc/status/session/tasks", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, now: Date.now(), tasks: [] };
    })
    .onRequest("svc/status/session/stats", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, ...session.stats.report() };
    })
    // The skills and MCP snapshots as the session sees them (the agent's, shared by every session).
    .onRequest("svc/status/session/resources", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, skills: { ...base, skills: deps.skills.catalog().skills.map(skillCell) }, mcp: { ...base, ...mcpSnapshot(mcp) } };
    })
    // The built-in agent uses no language servers.
    .onRequest("svc/status/session/lsp", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, enabled: false, configuredServers: 0, readyServers: 0, failedServers: 0, inProgressServers: 0, notStartedServers: 0, servers: [] };
    });
}
