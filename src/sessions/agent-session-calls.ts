/**
 * The ACP calls that open a session on a workspace's agent, each answer checked before the daemon
 * takes it: `session/new`, `session/fork`, and `session/load` or `session/resume` of a persisted
 * one. A new or forked session's id must be one no live session uses, on either side (`inUse`).
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { DaemonError } from "../errors/daemon-error.ts";
import { AgentRequestError } from "../runtime/acp-channel.ts";
import type { SessionSink } from "../runtime/session-sinks.ts";
import type { Live, WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import { agentRestoreFailed, isUnknownSession } from "./session-errors.ts";

type Opened<R> = R & { models?: unknown };

/** Takes a loading session's traffic while the agent replays its own history (not republished). */
const REPLAY_SINK: SessionSink = {
  onUpdate: () => {},
  onPermission: () => Promise.resolve({ outcome: { outcome: "cancelled" } }),
  onChannelDied: () => {},
};

/** Refuses an answer without a session id, or with one a live session uses. */
function checkNewId(runtime: WorkspaceRuntime, response: { sessionId?: unknown } | null | undefined, method: string, inUse: (id: string) => boolean): void {
  if (!response || typeof response.sessionId !== "string" || response.sessionId === "")
    throw new DaemonError(502, "agent_protocol_error", `The agent answered ${method} without a session id`, { errorKind: "protocol_error" });
  if (inUse(response.sessionId) || runtime.routes(response.sessionId))
    throw new DaemonError(502, "agent_protocol_error", "The agent reused a live session id", { errorKind: "protocol_error" });
}

/** `session/new` on `live` in `cwd`. */
export async function openOnAgent(runtime: WorkspaceRuntime, live: Live, timeoutMs: number, cwd: string, inUse: (id: string) => boolean): Promise<Opened<acp.NewSessionResponse>> {
  let response: Opened<acp.NewSessionResponse>;
  try {
    response = await live.channel.request<Opened<acp.NewSessionResponse>>("session/new", { cwd, mcpServers: [] }, { timeoutMs });
  } catch (err) {
    // Before a first session ever opened, a dead channel is a failed start (see `sessionOpenFailed`).
    throw await runtime.sessionOpenFailed(live, err);
  }
  checkNewId(runtime, response, "session/new", inUse);
  return response;
}

/**
 * `session/fork` of `agentSessionId` on `live`. A fork is a new conversation: an id the catalog
 * holds already (`known`: a closed session, the parent's own ancestors) would take over that
 * session's history and could link it to itself, so it is refused like a live one.
 */
export async function forkOnAgent(
  runtime: WorkspaceRuntime,
  live: Live,
  fork: { readonly agentSessionId: string; readonly meta: Record<string, unknown> | undefined; readonly cwd: string },
  timeoutMs: number,
  inUse: (id: string) => boolean,
  known: (id: string) => boolean,
): Promise<Opened<acp.ForkSessionResponse>> {
  let response: Opened<acp.ForkSessionResponse>;
  try {
    response = await live.channel.request<Opened<acp.ForkSessionResponse>>(
      "session/fork",
      { sessionId: fork.agentSessionId, cwd: fork.cwd, mcpServers: [], ...(fork.meta ? { _meta: fork.meta } : {}) },
      { timeoutMs },
    );
  } catch (err) {
    if (!(err instanceof AgentRequestError)) throw err;
    const kind = err.facts.errorKind;
    if (kind === "session_busy") throw new DaemonError(409, "branch_while_prompt_active", "Cannot branch while a prompt is running", { sessionId: fork.agentSessionId });
    if (kind === "branch_point_invalid") throw new DaemonError(409, "branch_point_invalid", "The agent's conversation no longer holds that turn (dropped by its history's bounds)", { errorKind: kind });
    throw new DaemonError(502, "agent_branch_failed", `The agent failed session/fork: ${err.message}`, { errorKind: "agent_error", retryable: false });
  }
  checkNewId(runtime, response, "session/fork", inUse);
  if (known(response.sessionId))
    throw new DaemonError(502, "agent_protocol_error", "The agent answered session/fork with the id of an existing session", { errorKind: "protocol_error" });
  return response;
}

/** What a load or resume came to: the agent's answer and the method, or why the session must be seeded instead. */
export type Reloaded = { readonly response: Opened<acp.LoadSessionResponse>; readonly method: "session/load" | "session/resume" } | "not_offered" | "unknown_session";

/**
 * `session/resume` or `session/load` of the persisted session `sessionId` (agent-side
 * `agentSessionId`) in `cwd`: the one `action` asks for when the agent offers it, else the other
 * one it offers. What the agent replays meanwhile is swallowed: the session's own journal is its
 * history. An agent offering neither is `not_offered`; one answering that it no longer knows the
 * session (`isUnknownSession`) is `unknown_session`; any other error it answers with is a 502
 * `agent_restore_failed`.
 */
export async function reloadOnAgent(
  runtime: WorkspaceRuntime,
  live: Live,
  ids: { readonly sessionId: string; readonly agentSessionId: string },
  action: "load" | "resume",
  cwd: string,
  timeoutMs: number,
): Promise<Reloaded> {
  const caps = live.channel.init.agentCapabilities;
  const offers = { load: caps?.loadSession === true, resume: typeof caps?.sessionCapabilities?.resume === "object" && caps.sessionCapabilities.resume !== null };
  const chosen = offers[action] ? action : offers.load ? "load" : offers.resume ? "resume" : null;
  if (chosen === null) return "not_offered";
  const method = chosen === "load" ? "session/load" : "session/resume";
  runtime.register(ids.agentSessionId, REPLAY_SINK);
  try {
    const response = await live.channel.request<Opened<acp.LoadSessionResponse>>(method, { sessionId: ids.agentSessionId, cwd, mcpServers: [] }, { timeoutMs });
    return { response: response ?? {}, method };
  } catch (err) {
    if (isUnknownSession(err)) return "unknown_session";
    throw err instanceof AgentRequestError ? agentRestoreFailed(ids.sessionId, method, err) : err;
  } finally {
    runtime.unregister(ids.agentSessionId);
  }
}
