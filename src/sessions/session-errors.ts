/**
 * The errors of a session's lookup and restore: 404 `session_not_found` (saying whether the session
 * can be brought back), and how an agent's answer to a load or resume is read.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { AgentRequestError } from "../runtime/acp-channel.ts";
import type { CatalogRow } from "../store/catalog.ts";

/** ACP's "resource not found" (the agent does not know the session id it was asked to load or resume). */
const RESOURCE_NOT_FOUND = -32002;

/** The agent answered a load or resume with "no such session" (its code, or its words where it uses another code). */
export const isUnknownSession = (err: unknown) =>
  err instanceof AgentRequestError && (err.rpcCode === RESOURCE_NOT_FOUND || /\b(session|resource)\b.*\bnot found\b|\bunknown session\b|\bno such session\b/i.test(err.message));

/** Any other error answer to a load or resume: a string code, and the agent's message as the channel redacted (known secrets replaced) and cut it. */
export const agentRestoreFailed = (sessionId: string, method: string, err: AgentRequestError) =>
  new DaemonError(502, "agent_restore_failed", `The agent failed ${method} of session ${sessionId}: ${err.message}`, { errorKind: "agent_error", sessionId, method, retryable: false });

export const restoreConflict = (sessionId: string) => new DaemonError(409, "session_conflict", "The session became live while it was being restored", { sessionId });

/**
 * 404 `session_not_found`. For a session that is persisted and not archived, `restorable: true`
 * (`POST /session/:id/load` brings it back) and `persistedState`, as the session lists say it:
 * `closed` (a client closed it), `restorable` (the daemon ended it: a shutdown, the idle reaper, its
 * workspace removed or its runtime stopped) or `interrupted` (its daemon or agent went away).
 */
export const sessionNotFound = (sessionId: string, persisted: Pick<CatalogRow, "state"> | null = null) =>
  new DaemonError(
    404,
    "session_not_found",
    `No session with id "${sessionId}"`,
    persisted === null ? { sessionId } : { sessionId, restorable: true, persistedState: persisted.state === "live" ? "interrupted" : persisted.state },
  );
