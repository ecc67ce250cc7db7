/** The live-session record of `GET /session/:id/status` and the session list (`sessions/session-summary.ts`). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";

const IsoTime = t.String({ description: "ISO 8601 timestamp" });

export const PullRequest = t.Object({
  number: Type.Integer({ minimum: 1 }),
  url: t.String(),
  state: t.Optional(t.Union([t.Literal("open"), t.Literal("merged"), t.Literal("closed")])),
});

const PendingInteraction = t.Object({
  requestId: t.String(),
  kind: t.Literal("permission"),
  createdAt: IsoTime,
  title: t.Optional(t.String()),
  toolCall: t.Object(
    { toolCallId: t.Optional(t.String()), title: t.Optional(t.String()), kind: t.Optional(t.String()), status: t.Optional(t.String()) },
    { additionalProperties: false, description: "the tool call's identity, each member at most 256 bytes (the whole call is in the permission_request event)" },
  ),
  options: t.Array(t.Object({ optionId: t.String(), label: t.String(), kind: t.String() })),
});

/** What a session is, live or persisted: the members its catalog row holds too. */
export const sessionIdentityProperties = {
  sessionId: t.String(),
  workspaceCwd: t.String(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
  displayName: t.Optional(t.String()),
  titleSource: t.Optional(t.Union([t.Literal("manual"), t.Literal("agent"), t.Literal("auto")], { description: "manual: a client set it; agent: the agent named it; auto: the daemon made it after the first turn" })),
  sourceType: t.Optional(t.String({ description: "where the session came from, as its creator named it on `POST /session`" })),
  sourceId: t.Optional(t.String({ description: "the source's own id, within `sourceType`" })),
  parentSessionId: t.Optional(t.String({ description: "a branch's parent session (`POST /session/:id/branch`); it may since have been deleted" })),
  parentPromptId: t.Optional(t.String({ description: "a branch's point: the prompt id of the parent's last turn the branch holds" })),
  worktree: t.Optional(t.Object({ slug: t.String(), path: t.String(), branch: t.String() }, { description: "the git worktree the session runs in (`POST /session` with `worktree`)" })),
  worktreeState: t.Optional(t.Literal("persisted-v1", { description: "with `worktree`: the catalog keeps it (a restore comes back in it)" })),
  currentCwd: t.Optional(t.String({ description: "with `worktree`: the directory the session works in (its checkout)" })),
  supersededBy: t.Optional(t.String({ description: "the session a worktree reset handed this session's checkout to (this one can no longer be restored)" })),
};

export const sessionSummaryProperties = {
  ...sessionIdentityProperties,
  prs: t.Optional(t.Array(PullRequest)),
  clientCount: Type.Integer(),
  hasActivePrompt: t.Boolean(),
  activeWorkState: t.Union([t.Literal("active"), t.Literal("idle")]),
  hasRunningBackgroundTasks: t.Boolean(),
  isWaitingForPermission: t.Boolean(),
  isWaitingForUserQuestion: t.Boolean(),
  pendingInteractionCount: Type.Integer(),
  hasTurnError: t.Boolean(),
  turnError: t.Optional(t.Object({ message: t.String(), code: t.Optional(t.String()), errorKind: t.Optional(t.String()) })),
  pendingInteractions: t.Array(PendingInteraction, { description: "The pending permission requests (in a session-list entry, the oldest 8; pendingInteractionCount counts all)" }),
};

export const SessionSummary = t.Object(sessionSummaryProperties, { description: "Runtime status of a live session" });
