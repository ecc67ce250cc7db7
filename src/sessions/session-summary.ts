/** The `GET /session/:id/status` and session-list record of a live session (pure). */
import type { LiveSession } from "./live-session.ts";

export function sessionSummary(session: LiveSession) {
  const pending = session.permissions.list();
  const turnError = session.prompts.lastTurnError;
  const running = session.prompts.running;
  return {
    sessionId: session.id,
    workspaceCwd: session.workspaceCwd,
    createdAt: new Date(session.createdAt).toISOString(),
    updatedAt: new Date(session.lastSeenAt).toISOString(),
    ...(session.metadata.displayName !== undefined ? { displayName: session.metadata.displayName, titleSource: session.metadata.titleSource } : {}),
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
    pendingInteractions: pending.map((p) => ({
      requestId: p.requestId,
      kind: "permission" as const,
      createdAt: new Date(p.createdAt).toISOString(),
      ...(typeof (p.toolCall as { title?: unknown })?.title === "string" ? { title: (p.toolCall as { title: string }).title } : {}),
      toolCall: p.toolCall,
      options: p.options.map((o) => ({ optionId: o.optionId, label: o.name, kind: o.kind })),
    })),
  };
}
