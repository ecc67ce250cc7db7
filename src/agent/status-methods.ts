/**
 * The `svc/status/*` and `svc/control/*` extension methods, in the shapes of the reference agent's
 * `qwen/…` ones (spec: protocol-notes §4), so the daemon's `svc` profile can fill its status routes
 * from the built-in agent: preflight cells, the tool list (built-in, and MCP tools once discovered),
 * a session's context, and the approval mode control. Unknown sessions are `-32002`, malformed params `-32602`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentConfig, ApprovalMode } from "../config/agent-config.ts";
import type { StatusCell } from "../workspace/status-cell.ts";
import type { AgentSession } from "./agent-session.ts";
import type { McpServers } from "./mcp/mcp-servers.ts";
import { toolbox } from "./mcp/mcp-tools.ts";
import { BUILTIN_TOOLS } from "./tools/registry.ts";

export interface StatusDeps {
  readonly config: AgentConfig;
  readonly mcp: McpServers;
  readonly workspace: string;
  readonly session: (sessionId: string) => AgentSession;
  /** The session's models and modes, as `session/new` reports them. */
  readonly state: (session: AgentSession) => Record<string, unknown>;
  /** Switches the session's mode (checked, announced); returns the previous one. */
  readonly setMode: (client: acp.AgentContext, session: AgentSession, modeId: string) => ApprovalMode;
}

/** Params parser: an object whose named fields are strings. */
const fields =
  <K extends string>(...keys: K[]): acp.ParamsParser<Record<K, string>> =>
  (params) => {
    const p = (params ?? {}) as Record<string, unknown>;
    for (const key of keys) if (typeof p[key] !== "string") throw acp.RequestError.invalidParams({ field: key }, `${key} must be a string`);
    return p as Record<K, string>;
  };

/** `mcp_discovery`: disabled with none declared, not started before the first prompt, then per server. */
function mcpCell(config: AgentConfig, mcp: McpServers): StatusCell {
  if (config.mcpServers.length === 0) return { kind: "mcp_discovery", locality: "acp", status: "disabled", hint: "no MCP servers are declared (mcpServers in $SVC_HOME/settings.json)" };
  const servers = mcp.status();
  if (servers.length < config.mcpServers.length) return { kind: "mcp_discovery", locality: "acp", status: "not_started", hint: "MCP servers are connected on the first prompt" };
  const failed = servers.filter((s) => s.status === "error");
  return {
    kind: "mcp_discovery",
    locality: "acp",
    status: failed.length === 0 ? "ok" : "warning",
    detail: { servers, budgetMode: config.mcpBudget.mode, ...(config.mcpBudget.limit === null ? {} : { clientBudget: config.mcpBudget.limit }) },
    ...(failed.length ? { error: `${failed.length} MCP server(s) unavailable` } : {}),
  };
}

export function preflightCells(config: AgentConfig, mcp: McpServers): StatusCell[] {
  const auth: StatusCell =
    config.defaultModelId === null
      ? { kind: "auth", locality: "acp", status: "error", errorKind: "auth_env_error", error: "No model is configured", hint: config.missingModelHint }
      : { kind: "auth", locality: "acp", status: "ok", detail: { modelId: config.defaultModelId } };
  return [
    auth,
    { kind: "providers", locality: "acp", status: config.models.length > 0 ? "ok" : "warning", detail: { models: config.models.map((m) => m.id) } },
    { kind: "tool_registry", locality: "acp", status: "ok", detail: { tools: [...BUILTIN_TOOLS.keys()] } },
    mcpCell(config, mcp),
    { kind: "skills", locality: "acp", status: "disabled", hint: "the built-in agent has no skills" },
    { kind: "egress", locality: "acp", status: "not_started" },
  ];
}

export function registerStatusMethods(app: acp.AgentApp, deps: StatusDeps): void {
  const { config, workspace } = deps;
  app
    .onRequest("svc/status/workspace/preflight", fields("cwd"), () => ({ cells: preflightCells(config, deps.mcp) }))
    .onRequest("svc/status/workspace/tools", fields("cwd"), () => ({
      v: 1,
      workspaceCwd: workspace,
      initialized: true,
      acpChannelLive: true,
      tools: [...toolbox(deps.mcp).values()].map((t) => ({ name: t.name, displayName: t.name, description: t.description, enabled: true })),
    }))
    .onRequest("svc/status/session/context", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, recovery: { kind: "clean", canContinue: true }, state: deps.state(session) };
    })
    .onRequest("svc/control/session/approval_mode", fields("sessionId", "mode"), ({ params, client }) => {
      const session = deps.session(params.sessionId);
      const previous = deps.setMode(client, session, params.mode);
      return { previous, current: session.mode };
    });
}
