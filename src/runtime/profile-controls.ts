/**
 * The control requests behind the daemon's mutation routes, per agent profile. A profile with an
 * extension prefix (`qwen`, `svc`) is asked `<prefix>/control/...` in the shapes of Qwen Code
 * 0.24.4 (spec/acp-agents.md §4.2); the generic profile has standard ACP only (`session/set_mode`).
 * What an agent cannot do is a typed DaemonError (`agentCannot`), never a silent no-op.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { AgentRequestError } from "./acp-channel.ts";
import { CONTROL_TIMEOUT_MS, type ExtensionPrefix } from "./agent-profile.ts";
import type { Live } from "./workspace-runtime.ts";

/** The approval modes the daemon accepts (Qwen Code's set). */
export const APPROVAL_MODES = ["plan", "default", "auto-edit", "auto", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** An MCP restart may wait for a stdio server's discovery (the reference allows 5 minutes). */
const MCP_RESTART_TIMEOUT_MS = 300_000;
const METHOD_NOT_FOUND = -32601;

const isMissing = (err: unknown) => err instanceof AgentRequestError && err.rpcCode === METHOD_NOT_FOUND;

/** 501 `agent_control_unsupported`: the live agent has no method for `what`. */
export const agentCannot = (live: Pick<Live, "profile">, what: string) =>
  new DaemonError(501, "agent_control_unsupported", `The agent (profile ${live.profile.name}) cannot ${what}`, { profile: live.profile.name });

/** `<prefix>/control/<method>`; a missing method (or no prefix) is `agentCannot(what)`. */
async function control<T>(live: Live, method: string, params: Record<string, unknown>, what: string, timeoutMs = CONTROL_TIMEOUT_MS): Promise<T> {
  const prefix: ExtensionPrefix | null = live.profile.extensionPrefix;
  if (prefix === null) throw agentCannot(live, what);
  try {
    return await live.channel.request<T>(`${prefix}/control/${method}`, params, { timeoutMs });
  } catch (err) {
    if (isMissing(err)) throw agentCannot(live, what);
    throw err;
  }
}

export interface ApprovalModeResult {
  readonly previous: string | null;
  readonly current: string;
}

/**
 * Sets the approval mode of the agent's session `sessionId`. A profile with a prefix is asked
 * `<prefix>/control/session/approval_mode`; where that method is missing, and for the generic
 * profile, the mode is set with `session/set_mode` when the session's modes (`offeredModes`) offer
 * it, and refused with 409 `approval_mode_unavailable` otherwise.
 */
export async function setApprovalMode(
  live: Live,
  sessionId: string,
  request: { mode: ApprovalMode; planMode?: boolean },
  modes: { current: string | null; offered: readonly string[] },
): Promise<ApprovalModeResult> {
  const prefix = live.profile.extensionPrefix;
  if (prefix !== null) {
    try {
      const params = { sessionId, mode: request.mode, ...(request.planMode === undefined ? {} : { planMode: request.planMode }) };
      const result = await live.channel.request<{ previous?: unknown; current?: unknown }>(`${prefix}/control/session/approval_mode`, params, { timeoutMs: CONTROL_TIMEOUT_MS });
      if (typeof result?.current !== "string") throw new DaemonError(502, "agent_invalid_response", "The agent answered the approval mode change without the current mode");
      return { previous: typeof result.previous === "string" ? result.previous : modes.current, current: result.current };
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
  if (request.planMode !== undefined) throw agentCannot(live, "set a plan execution mode");
  if (!modes.offered.includes(request.mode))
    throw new DaemonError(409, "approval_mode_unavailable", `The agent does not offer mode "${request.mode}" in this session`, { mode: request.mode, availableModes: [...modes.offered] });
  await live.channel.request("session/set_mode", { sessionId, modeId: request.mode }, { timeoutMs: CONTROL_TIMEOUT_MS });
  return { previous: modes.current, current: request.mode };
}

export interface McpReloadOptions {
  readonly forceReconnectAll?: boolean;
  readonly forceReconnectWhich?: readonly string[];
}

/** The agent's answer to a reload, as it came. */
export interface McpReloadResult {
  readonly accepted?: boolean;
  readonly [key: string]: unknown;
}

/** `<prefix>/control/workspace/mcp/reload {cwd, ...options}`. */
export function reloadMcp(live: Live, cwd: string, options: McpReloadOptions): Promise<McpReloadResult> {
  return control<McpReloadResult>(live, "workspace/mcp/reload", { cwd, ...options }, "reload MCP servers");
}

/** One pooled entry's outcome in a restart answer. */
export interface RestartEntry {
  readonly entryIndex: number;
  readonly restarted: boolean;
  readonly durationMs?: number;
  readonly reason?: string;
}

/** A restart answer: `{serverName, restarted, durationMs?}`, `{..., skipped, reason}` when refused, or per pooled entry. */
export interface RestartResult {
  readonly serverName: string;
  readonly restarted?: boolean;
  readonly durationMs?: number;
  readonly reason?: string;
  readonly entries?: readonly RestartEntry[];
  readonly [key: string]: unknown;
}

/**
 * `<prefix>/control/workspace/mcp/restart {serverName, entryIndex?}`. The agent's typed failures
 * become the reference's codes: 404 `mcp_server_not_found`, 502 `mcp_server_restart_failed`.
 */
export async function restartMcp(live: Live, serverName: string, entryIndex: number | undefined): Promise<RestartResult> {
  try {
    return await control<RestartResult>(live, "workspace/mcp/restart", { serverName, ...(entryIndex === undefined ? {} : { entryIndex }) }, "restart MCP servers", MCP_RESTART_TIMEOUT_MS);
  } catch (err) {
    const data = err instanceof AgentRequestError && err.data !== null && typeof err.data === "object" ? (err.data as Record<string, unknown>) : null;
    if (data?.errorKind === "mcp_server_not_found") throw new DaemonError(404, "mcp_server_not_found", `No MCP server named "${serverName}"`, { serverName });
    if (data?.errorKind === "mcp_restart_failed")
      throw new DaemonError(502, "mcp_server_restart_failed", `MCP server "${serverName}" failed to restart`, {
        errorKind: "protocol_error",
        serverName,
        mcpStatus: typeof data.mcpStatus === "string" ? data.mcpStatus : "unknown",
      });
    throw err;
  }
}

/**
 * Tells a live built-in agent that a tool was toggled (`svc/control/workspace/tools/enable`), so
 * it applies the change at once. Other profiles read the settings file; an agent without the
 * method is left to do the same (false).
 */
export async function announceToolToggle(live: Live, cwd: string, name: string, enabled: boolean): Promise<boolean> {
  if (live.profile.extensionPrefix !== "svc") return false;
  try {
    await live.channel.request("svc/control/workspace/tools/enable", { cwd, name, enabled }, { timeoutMs: CONTROL_TIMEOUT_MS });
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/** What a skills refresh reports. */
export interface SkillsRefresh {
  readonly sessionsRefreshed: number;
  readonly sessionsFailed: number;
}

/** `qwen/control/workspace/skills/refresh {cwd, reason: "settings"}` after the skill settings changed. */
export async function refreshSkills(live: Live, cwd: string): Promise<SkillsRefresh> {
  const result = await control<Partial<SkillsRefresh>>(live, "workspace/skills/refresh", { cwd, reason: "settings" }, "refresh skills");
  const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
  return { sessionsRefreshed: count(result?.sessionsRefreshed), sessionsFailed: count(result?.sessionsFailed) };
}
