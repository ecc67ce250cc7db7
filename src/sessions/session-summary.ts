/**
 * The `GET /session/:id/status` and session-list record of a live session (pure). Its pending
 * interactions carry what a client needs to show and answer them (the request id, the options as
 * bounded at admission, and the tool call's identity: `runtime/permission-bounds.ts`), never the tool
 * call's content: that went out whole in the `permission_request` event. A list entry names at
 * most MAX_LISTED_INTERACTIONS of them (the oldest; `pendingInteractionCount` counts them all),
 * so a list of many sessions stays small whatever their agents asked.
 */
import type { BranchLink, LiveSession } from "./live-session.ts";
import { sourceFields } from "./session-source.ts";
import { worktreeFields } from "./worktree-seam.ts";

/** Pending interactions named in one session-list entry. */
export const MAX_LISTED_INTERACTIONS = 8;

export interface SummaryOptions {
  /** For a session-list entry: at most MAX_LISTED_INTERACTIONS pending interactions. */
  readonly listEntry?: boolean;
}

/** A branch's link as the session records show it (nothing for a session that is not a branch). */
export const parentFields = (link: BranchLink | null): { parentSessionId?: string; parentPromptId?: string } =>
  link === null ? {} : { parentSessionId: link.parentSessionId, ...(link.parentPromptId === null ? {} : { parentPromptId: link.parentPromptId }) };

export function sessionSummary(session: LiveSession, options: SummaryOptions = {}) {
  const pending = session.permissions.list();
  const turnError = session.prompts.lastTurnError;
  const running = session.prompts.running;
  const named = options.listEntry ? pending.slice(0, MAX_LISTED_INTERACTIONS) : pending;
  return {
    sessionId: session.id,
    workspaceCwd: session.workspaceCwd,
    createdAt: new Date(session.createdAt).toISOString(),
    updatedAt: new Date(session.lastSeenAt).toISOString(),
    ...(session.metadata.displayName !== undefined ? { displayName: session.metadata.displayName, titleSource: session.metadata.titleSource } : {}),
    ...sourceFields(session.source),
    ...parentFields(session.parent),
    ...worktreeFields(session.worktree),
    ...(session.metadata.prs ? { prs: session.metadata.prs } : {}),
    clientCount: session.clients.size,
    hasActivePrompt: running !== null,
    activeWorkState: session.busy ? ("active" as const) : ("idle" as const),
    hasRunningBackgroundTasks: false,
    isWaitingForPermission: pending.length > 0,
    isWaitingForUserQuestion: false,
    pendingInteractionCount: pending.length,
    hasTurnError: turnError !== null,
    ...(turnError ? { turnError } : {}),
    pendingInteractions: named.map((p) => ({
      requestId: p.requestId,
      kind: "permission" as const,
      createdAt: new Date(p.createdAt).toISOString(),
      ...(typeof p.toolCall.title === "string" ? { title: p.toolCall.title } : {}),
      toolCall: p.toolCall,
      options: p.options.map((o) => ({ optionId: o.optionId, label: o.name, kind: o.kind })),
    })),
  };
}
