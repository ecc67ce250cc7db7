/**
 * The `svc/control/*` extension methods, in the shapes of the reference agent's `qwen/control/*`
 * ones (spec acp-agents §4.2), so the daemon's `svc` profile drives the built-in agent as it drives
 * qwen: a session's approval mode, a tool's enabled state (applied at once; the daemon writes the
 * workspace's `tools.disabled` for the next start), MCP discovery: initialize, reload,
 * restart of one server, a skills refresh (skills are read at each turn: it only counts the
 * sessions the next turn of which sees the change), and the workspace's trust (`svc/control/workspace/trust {cwd, trusted}`,
 * the daemon's decision, applied at once: see agent-app.ts).
 *
 * Errors: malformed params or another `cwd` `-32602`; unknown session `-32002`; unknown MCP server
 * `-32004` with `errorKind: "mcp_server_not_found"`; a restart that does not connect `-32099` with
 * `errorKind: "mcp_restart_failed"` (the reference's codes). A restart the budget or a running
 * discovery prevents is an answer: `{serverName, restarted: false, skipped: true, reason}`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ApprovalMode, McpServerConfig } from "../config/agent-config.ts";
import type { TrustChangeResult } from "./agent-app.ts";
import type { AgentSession } from "./agent-session.ts";
import type { McpServers } from "./mcp/mcp-servers.ts";
import { checkCwd, fields } from "./status-methods.ts";

/** Longest tool name accepted by tools/enable (MCP tool names are at most 64 characters). */
const MAX_TOOL_NAME_CHARS = 128;

export interface ControlDeps {
  readonly mcp: McpServers;
  /** Changed in place by tools/enable; every later model round reads it. */
  readonly disabledTools: Set<string>;
  readonly workspace: string;
  /** How many sessions are open (a skills refresh reaches them all). */
  readonly liveSessions: () => number;
  readonly session: (sessionId: string) => AgentSession;
  /** Switches the session's mode (checked, announced); returns the previous one. */
  readonly setMode: (client: acp.AgentContext, session: AgentSession, modeId: string) => ApprovalMode;
  /** Applies a trust decision; returns what it changed. */
  readonly setTrust: (client: acp.AgentContext, trusted: boolean) => TrustChangeResult;
  readonly rereadMcpServers: () => McpServerConfig[];
  /** Lets MCP budget events reach the client (a control may start discovery before any session exists). */
  readonly attach: (client: acp.AgentContext) => void;
}

const toolEnableParams: acp.ParamsParser<{ cwd: string; name: string; enabled: boolean }> = (params) => {
  const p = fields("cwd", "name")(params) as Record<string, unknown>;
  const name = p.name as string;
  if (name === "" || name.length > MAX_TOOL_NAME_CHARS) throw acp.RequestError.invalidParams({ field: "name" }, `name must be 1-${MAX_TOOL_NAME_CHARS} characters`);
  if (typeof p.enabled !== "boolean") throw acp.RequestError.invalidParams({ field: "enabled" }, "enabled must be a boolean");
  return { cwd: p.cwd as string, name, enabled: p.enabled };
};

const trustParams: acp.ParamsParser<{ cwd: string; trusted: boolean }> = (params) => {
  const p = fields("cwd")(params) as Record<string, unknown>;
  if (typeof p.trusted !== "boolean") throw acp.RequestError.invalidParams({ field: "trusted" }, "trusted must be a boolean");
  return { cwd: p.cwd as string, trusted: p.trusted };
};

/** `{cwd, forceReconnectAll?, forceReconnectWhich?}`: checked as the reference checks them; every reload reconnects all servers. */
const reloadParams: acp.ParamsParser<{ cwd: string }> = (params) => {
  const p = fields("cwd")(params) as Record<string, unknown>;
  if (p.forceReconnectAll !== undefined && typeof p.forceReconnectAll !== "boolean") throw acp.RequestError.invalidParams(undefined, "forceReconnectAll must be a boolean");
  const which = p.forceReconnectWhich;
  if (which !== undefined && (!Array.isArray(which) || which.some((n) => typeof n !== "string" || n === ""))) throw acp.RequestError.invalidParams(undefined, "forceReconnectWhich must be an array of server names");
  if (p.forceReconnectAll === true && which !== undefined) throw acp.RequestError.invalidParams(undefined, "forceReconnectAll and forceReconnectWhich cannot be used together");
  return { cwd: p.cwd as string };
};

/** `{serverName, cwd?}` (the daemon sends no cwd for a restart, as with qwen). */
const restartParams: acp.ParamsParser<{ serverName: string; cwd?: string }> = (params) => {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.serverName !== "string" || p.serverName === "") throw acp.RequestError.invalidParams(undefined, "Invalid or missing serverName");
  if (p.cwd !== undefined && typeof p.cwd !== "string") throw acp.RequestError.invalidParams({ field: "cwd" }, "cwd must be a string");
  return { serverName: p.serverName, ...(typeof p.cwd === "string" ? { cwd: p.cwd } : {}) };
};

export function registerControlMethods(app: acp.AgentApp, deps: ControlDeps): void {
  const { mcp, workspace } = deps;
  app
    .onRequest("svc/control/session/approval_mode", fields("sessionId", "mode"), ({ params, client }) => {
      const session = deps.session(params.sessionId);
      const previous = deps.setMode(client, session, params.mode);
      return { previous, current: session.mode };
    })
    .onRequest("svc/control/workspace/tools/enable", toolEnableParams, ({ params }) => {
      checkCwd(params.cwd, workspace);
      if (params.enabled) deps.disabledTools.delete(params.name);
      else deps.disabledTools.add(params.name);
      return { toolName: params.name, enabled: params.enabled };
    })
    .onRequest("svc/control/workspace/skills/refresh", fields("cwd"), ({ params }) => {
      checkCwd(params.cwd, workspace);
      return { sessionsRefreshed: deps.liveSessions(), sessionsFailed: 0 };
    })
    .onRequest("svc/control/workspace/trust", trustParams, ({ params, client }) => {
      checkCwd(params.cwd, workspace);
      return deps.setTrust(client, params.trusted);
    })
    .onRequest("svc/control/workspace/mcp/initialize", fields("cwd"), ({ params, client }) => {
      checkCwd(params.cwd, workspace);
      deps.attach(client);
      return { accepted: mcp.start() };
    })
    .onRequest("svc/control/workspace/mcp/reload", reloadParams, ({ params, client }) => {
      checkCwd(params.cwd, workspace);
      deps.attach(client);
      mcp.reload(deps.rereadMcpServers());
      return { accepted: true };
    })
    .onRequest("svc/control/workspace/mcp/restart", restartParams, async ({ params, client }) => {
      if (params.cwd !== undefined) checkCwd(params.cwd, workspace);
      deps.attach(client);
      const { serverName } = params;
      const outcome = await mcp.restart(serverName);
      switch (outcome.kind) {
        case "unknown":
          throw new acp.RequestError(-32004, `MCP server not configured: ${JSON.stringify(serverName)}`, { errorKind: "mcp_server_not_found", serverName });
        case "skipped":
          return { serverName, restarted: false, skipped: true, reason: outcome.reason };
        case "failed":
          throw new acp.RequestError(-32099, `MCP server ${JSON.stringify(serverName)} did not reach a connected state after restart (status: disconnected).`, {
            errorKind: "mcp_restart_failed",
            serverName,
            mcpStatus: "disconnected",
          });
        case "restarted":
          return { serverName, restarted: true, durationMs: outcome.durationMs };
      }
    });
}
