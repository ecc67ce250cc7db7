/**
 * The control requests behind the daemon's mutation routes, per agent profile. A profile with an
 * extension prefix (`qwen`, `svc`) is asked `<prefix>/control/...` in the shapes of Qwen Code
 * 0.24.4 (spec/acp-agents.md §4.2); the generic profile has standard ACP only (`session/set_mode`).
 * What an agent cannot do is a typed DaemonError (`agentCannot`), never a silent no-op.
 *
 * Every answer is rebuilt from its known, typed fields, each agent string bounded (MAX_AGENT_STRING)
 * and nothing else passed on; an answer that lacks what its shape needs is 502
 * `agent_protocol_error`. An agent's error answer is 502 `agent_control_failed` with its message
 * (secrets redacted, bounded, by the channel) and only a well-formed `errorKind` of its data; a
 * request that times out is the channel's 504 `agent_timeout`.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { AgentRequestError } from "./acp-channel.ts";
import { CONTROL_TIMEOUT_MS, type ExtensionPrefix } from "./agent-profile.ts";
import type { Live } from "./workspace-runtime.ts";

/** The approval modes the daemon accepts (Qwen Code's set). */
export const APPROVAL_MODES = ["plan", "default", "auto-edit", "auto", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Longest agent-supplied string kept (a refusal reason, a previous mode); a longer one is cut, ending in "…". */
export const MAX_AGENT_STRING = 256;
/** Most pooled entries a restart answer may report; more is a protocol error. */
export const MAX_RESTART_ENTRIES = 1024;
/** The members of an agent's error data passed on (as `agentErrorKind`, `mcpStatus`), each only when a short snake_case token; nothing else of it. */
const TOKEN = /^[a-z][a-z0-9_]{0,63}$/;

/** An MCP restart may wait for a stdio server's discovery (the reference allows 5 minutes). */
const MCP_RESTART_TIMEOUT_MS = 300_000;
const METHOD_NOT_FOUND = -32601;

/** The agent answered `-32601`: it has no such method. */
export const isMissing = (err: unknown) => err instanceof AgentRequestError && err.rpcCode === METHOD_NOT_FOUND;

/** `value` cut to MAX_AGENT_STRING characters, or null when it is not a string. */
export function boundedText(value: unknown): string | null {
  if (typeof value !== "string") return null;
  return value.length > MAX_AGENT_STRING ? `${value.slice(0, MAX_AGENT_STRING - 1)}…` : value;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** 502 `agent_protocol_error`: the agent answered `what` in a shape the daemon does not know. */
export const protocolError = (what: string) => new DaemonError(502, "agent_protocol_error", `The agent answered ${what} in an unknown shape`, { errorKind: "protocol_error" });

/**
 * An agent's error answer as 502 `agent_control_failed`: its message (already redacted and
 * bounded by the channel), its JSON-RPC code, and from its data only `errorKind` (as
 * `agentErrorKind`) and `mcpStatus`, each when a token (TOKEN). Other errors (timeout 504, closed
 * channel 503, the daemon's own) pass through.
 */
export function agentFailure(err: unknown, what: string): unknown {
  if (!(err instanceof AgentRequestError)) return err;
  const data = err.data !== null && typeof err.data === "object" ? (err.data as Record<string, unknown>) : {};
  const token = (v: unknown) => typeof v === "string" && TOKEN.test(v);
  return new DaemonError(502, "agent_control_failed", `The agent failed to ${what}: ${err.message}`, {
    errorKind: "agent_error",
    rpcCode: err.rpcCode,
    ...(token(data.errorKind) ? { agentErrorKind: data.errorKind } : {}),
    ...(token(data.mcpStatus) ? { mcpStatus: data.mcpStatus } : {}),
  });
}

/** A request to the agent whose error answer is `agentFailure`; a missing method is left to the caller. */
async function ask<T>(live: Live, method: string, params: Record<string, unknown>, what: string, timeoutMs = CONTROL_TIMEOUT_MS): Promise<T> {
  try {
    return await live.channel.request<T>(method, params, { timeoutMs });
  } catch (err) {
    throw isMissing(err) ? err : agentFailure(err, what);
  }
}

/** 501 `agent_control_unsupported`: the live agent has no method for `what`. */
export const agentCannot = (live: Pick<Live, "profile">, what: string) =>
  new DaemonError(501, "agent_control_unsupported", `The agent (profile ${live.profile.name}) cannot ${what}`, { profile: live.profile.name });

/** `<prefix>/control/<method>`; a missing method (or no prefix) is `agentCannot(what)`. */
export async function control<T>(live: Live, method: string, params: Record<string, unknown>, what: string, timeoutMs = CONTROL_TIMEOUT_MS): Promise<T> {
  const prefix: ExtensionPrefix | null = live.profile.extensionPrefix;
  if (prefix === null) throw agentCannot(live, what);
  try {
    return await ask<T>(live, `${prefix}/control/${method}`, params, what, timeoutMs);
  } catch (err) {
    if (isMissing(err)) throw agentCannot(live, what);
    throw err;
  }
}

export interface ApprovalModeResult {
  /** The mode before, when known (bounded). */
  readonly previous: string | null;
  readonly current: ApprovalMode;
}

const isApprovalMode = (value: unknown): value is ApprovalMode => typeof value === "string" && (APPROVAL_MODES as readonly string[]).includes(value);

/**
 * Sets the approval mode of the agent's session `sessionId`. A profile with a prefix is asked
 * `<prefix>/control/session/approval_mode`; where that method is missing, and for the generic
 * profile, the mode is set with `session/set_mode` when the session's modes (`offeredModes`) offer
 * it, and refused with 409 `approval_mode_unavailable` otherwise. The agent's `current` must be one
 * of APPROVAL_MODES (else 502, and the caller stores nothing); its `previous` is kept when it is one
 * too, the session's own record (bounded) otherwise.
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
      const result = await ask<{ previous?: unknown; current?: unknown } | null>(live, `${prefix}/control/session/approval_mode`, params, "set the approval mode");
      if (!isApprovalMode(result?.current)) throw protocolError("the approval mode change");
      return { previous: isApprovalMode(result.previous) ? result.previous : boundedText(modes.current), current: result.current };
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
  if (request.planMode !== undefined) throw agentCannot(live, "set a plan execution mode");
  if (!modes.offered.includes(request.mode))
    throw new DaemonError(409, "approval_mode_unavailable", `The agent does not offer mode "${request.mode}" in this session`, { mode: request.mode, availableModes: [...modes.offered] });
  await ask(live, "session/set_mode", { sessionId, modeId: request.mode }, "set the session mode");
  return { previous: boundedText(modes.current), current: request.mode };
}

export interface McpReloadOptions {
  readonly forceReconnectAll?: boolean;
  readonly forceReconnectWhich?: readonly string[];
}

/** The agent's answer to a reload. */
export interface McpReloadResult {
  readonly accepted: boolean;
}

/** `<prefix>/control/workspace/mcp/reload {cwd, ...options}` → `{accepted}` (Qwen Code answers `{accepted: true}`). */
export async function reloadMcp(live: Live, cwd: string, options: McpReloadOptions): Promise<McpReloadResult> {
  const result = await control<{ accepted?: unknown } | null>(live, "workspace/mcp/reload", { cwd, ...options }, "reload MCP servers");
  if (typeof result?.accepted !== "boolean") throw protocolError("the MCP reload");
  return { accepted: result.accepted };
}

/** One pooled entry's outcome in a restart answer. */
export interface RestartEntry {
  readonly entryIndex: number;
  readonly restarted: boolean;
  readonly durationMs?: number;
  readonly reason?: string;
}

/**
 * A restart answer (Qwen Code 0.24.4's shapes): `{serverName, restarted: true, durationMs}`, a
 * refusal `{serverName, restarted: false, skipped: true, reason}`, or `{serverName, entries[]}` of a
 * pool. `serverName` is always the server the daemon asked for, whatever the agent named.
 */
export interface RestartResult {
  readonly serverName: string;
  readonly restarted?: boolean;
  readonly durationMs?: number;
  readonly skipped?: boolean;
  readonly reason?: string;
  readonly entries?: RestartEntry[];
}

/** The known fields of one outcome, or null when `restarted` is not a boolean. */
function outcome(value: unknown): { restarted: boolean; durationMs?: number; reason?: string } | null {
  if (value === null || typeof value !== "object" || typeof (value as { restarted?: unknown }).restarted !== "boolean") return null;
  const v = value as { restarted: boolean; durationMs?: unknown; reason?: unknown };
  const reason = boundedText(v.reason);
  return { restarted: v.restarted, ...(isCount(v.durationMs) ? { durationMs: v.durationMs } : {}), ...(reason === null ? {} : { reason }) };
}

/** `answer` rebuilt as a RestartResult for `serverName`; null when it fits none of the shapes. */
function readRestart(answer: unknown, serverName: string): RestartResult | null {
  if (answer === null || typeof answer !== "object") return null;
  const entries = (answer as { entries?: unknown }).entries;
  if (entries !== undefined) {
    if (!Array.isArray(entries) || entries.length > MAX_RESTART_ENTRIES) return null;
    const out: RestartEntry[] = [];
    for (const entry of entries) {
      const known = outcome(entry);
      const entryIndex = (entry as { entryIndex?: unknown } | null)?.entryIndex;
      if (known === null || !isCount(entryIndex)) return null;
      out.push({ entryIndex, ...known });
    }
    return { serverName, entries: out };
  }
  const known = outcome(answer);
  if (known === null) return null;
  return { serverName, ...known, ...((answer as { skipped?: unknown }).skipped === true ? { skipped: true } : {}) };
}

/**
 * `<prefix>/control/workspace/mcp/restart {serverName, entryIndex?}`. The agent's typed failures
 * become the reference's codes: 404 `mcp_server_not_found`, 502 `mcp_server_restart_failed`.
 */
export async function restartMcp(live: Live, serverName: string, entryIndex: number | undefined): Promise<RestartResult> {
  let answer: unknown;
  try {
    answer = await control<unknown>(live, "workspace/mcp/restart", { serverName, ...(entryIndex === undefined ? {} : { entryIndex }) }, "restart MCP servers", MCP_RESTART_TIMEOUT_MS);
  } catch (err) {
    const fields = err instanceof DaemonError && err.code === "agent_control_failed" ? err.fields : {};
    if (fields.agentErrorKind === "mcp_server_not_found") throw new DaemonError(404, "mcp_server_not_found", `No MCP server named "${serverName}"`, { serverName });
    if (fields.agentErrorKind === "mcp_restart_failed")
      throw new DaemonError(502, "mcp_server_restart_failed", `MCP server "${serverName}" failed to restart`, { errorKind: "protocol_error", serverName, mcpStatus: fields.mcpStatus ?? "unknown" });
    throw err;
  }
  const result = readRestart(answer, serverName);
  if (result === null) throw protocolError("the MCP restart");
  return result;
}

/**
 * Tells a live built-in agent that a tool was toggled (`svc/control/workspace/tools/enable`), so
 * it applies the change at once. Other profiles read the settings file; an agent without the
 * method is left to do the same (false).
 */
export async function announceToolToggle(live: Live, cwd: string, name: string, enabled: boolean): Promise<boolean> {
  if (live.profile.extensionPrefix !== "svc") return false;
  try {
    await ask(live, "svc/control/workspace/tools/enable", { cwd, name, enabled }, `${enabled ? "enable" : "disable"} tool "${name}"`);
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

/** What a built-in agent changed for a trust decision: its sessions switched to `default`, each with the mode it had. */
export interface TrustAnswer {
  readonly narrowed: readonly { readonly agentSessionId: string; readonly previous: ApprovalMode }[];
}

/** Most narrowed sessions an answer may list (the built-in agent's own session cap); more is a protocol error. */
const MAX_NARROWED = 1000;

/**
 * Tells a live built-in agent the daemon's trust decision (`svc/control/workspace/trust {cwd,
 * trusted}`), which it applies at once. Only the built-in agent takes it (another agent keeps its
 * own trust settings): `agentCannot` for any other. The answer must echo the decision and list the
 * sessions it narrowed; anything else is 502 `agent_protocol_error`.
 */
export async function announceTrust(live: Live, cwd: string, trusted: boolean): Promise<TrustAnswer> {
  if (live.profile.extensionPrefix !== "svc") throw agentCannot(live, "take the daemon's trust decision");
  const answer = await control<{ trusted?: unknown; narrowed?: unknown } | null>(live, "workspace/trust", { cwd, trusted }, "apply the workspace's trust");
  const narrowed = answer?.narrowed;
  if (answer?.trusted !== trusted || !Array.isArray(narrowed) || narrowed.length > MAX_NARROWED) throw protocolError("the trust change");
  const out: { agentSessionId: string; previous: ApprovalMode }[] = [];
  for (const entry of narrowed as unknown[]) {
    const e = (entry ?? {}) as { sessionId?: unknown; previous?: unknown };
    if (typeof e.sessionId !== "string" || e.sessionId.length > MAX_AGENT_STRING || !isApprovalMode(e.previous)) throw protocolError("the trust change");
    out.push({ agentSessionId: e.sessionId, previous: e.previous });
  }
  return { narrowed: out };
}

/**
 * Cuts the agent's conversation back to before prompt `promptId` (`svc/control/session/rewind`, the
 * built-in agent; the daemon's prompt id, which the agent kept with the prompt). Other agents have
 * no such method: `agentCannot` (501). The agent's `invalid_rewind_target` is 400 and its
 * `session_busy` 409, under the daemon's own codes.
 */
export async function rewindConversation(live: Live, sessionId: string, promptId: string): Promise<void> {
  const what = "rewind the conversation";
  if (live.profile.extensionPrefix !== "svc") throw agentCannot(live, what);
  try {
    await live.channel.request(`svc/control/session/rewind`, { sessionId, promptId }, { timeoutMs: CONTROL_TIMEOUT_MS });
  } catch (err) {
    if (isMissing(err)) throw agentCannot(live, what);
    const kind = err instanceof AgentRequestError ? ((err.data ?? {}) as { errorKind?: unknown }).errorKind : undefined;
    if (kind === "invalid_rewind_target") throw new DaemonError(400, "invalid_rewind_target", "The agent's conversation does not hold this prompt (it was never sent, or dropped by the history's bounds)", { promptId });
    if (kind === "session_busy") throw new DaemonError(409, "session_busy", "Cannot rewind while a prompt is running", { retryable: true }, 5);
    throw agentFailure(err, what);
  }
}
