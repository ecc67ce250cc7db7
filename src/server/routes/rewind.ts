/**
 * Checkpoints and rewind (`sessions/session-rewind.ts`, `src/checkpoints/`):
 *
 *   GET  /session/:id/rewind/snapshots → {snapshots: [{promptId, turnIndex, timestamp, diffStats: {filesChanged}, files[]}]}
 *   POST /session/:id/rewind {promptId, rewindFiles?, rewindConversation?, force?}
 *        → {rewound, promptId, targetTurnIndex, filesChanged[], filesFailed[], conversationRewound}
 *
 * The rewind is a strict mutation (it writes files). 409 `rewind_conflict` lists in `files` what
 * changed outside the session since; 409 `session_busy` while a prompt runs or waits; 501 when the
 * agent cannot cut its conversation (send `rewindConversation: false` to restore files only).
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { SessionRewinder } from "../../sessions/session-rewind.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { notAnObject, registeredClient, SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const Count = Type.Integer({ minimum: 0 });

const FileChange = t.Object(
  {
    path: t.String({ description: "Workspace-relative" }),
    change: t.Union([t.Literal("created"), t.Literal("modified"), t.Literal("deleted")]),
    source: t.Union([t.Literal("tool"), t.Literal("shell")], { description: "`tool`: an edit tool's write (exact); `shell`: found by comparing git's tracked files before and after the turn" }),
    restorable: t.Boolean(),
    reason: t.Optional(t.String({ description: "Why it is not restorable: `too_large`, `over_budget`, `unreadable`, `not_in_git`" })),
  },
  { description: "A file the turn changed" },
);

const SnapshotsReply = t.Object({
  snapshots: t.Array(
    t.Object({
      promptId: t.String(),
      turnIndex: Count,
      timestamp: t.String({ description: "ISO 8601, when the turn started" }),
      diffStats: t.Object({ filesChanged: Count }),
      files: t.Array(FileChange),
      filesOmitted: t.Optional(Count),
    }),
    { description: "The session's recorded turns, oldest first (the oldest may have been evicted to keep the snapshot storage under its bound)" },
  ),
});

const RewindBody = t.Object(
  {
    promptId: t.String({ minLength: 1, maxLength: 512, description: "The turn to rewind to before (a `promptId` of the snapshots list)" }),
    rewindFiles: t.Optional(t.Boolean({ description: "Restore the files the turns from it on changed (default true)" })),
    rewindConversation: t.Optional(t.Boolean({ description: "Cut the agent's conversation back to before the turn (default true)" })),
    force: t.Optional(t.Boolean({ description: "Restore files even if they changed outside the session since (default false)" })),
  },
  { additionalProperties: false, error: notAnObject },
);

const RewindReply = t.Object({
  rewound: t.Boolean({ description: "Every file to restore was restored" }),
  promptId: t.String(),
  targetTurnIndex: t.Union([Count, t.Null()]),
  filesChanged: t.Array(t.String()),
  filesFailed: t.Array(t.String()),
  conversationRewound: t.Boolean(),
});

export const rewindRoutes = (app: RouteApp, deps: AppDeps) => {
  const seam = deps.sessions.checkpoints;
  const rewinder = seam ? new SessionRewinder(seam) : null;
  const unavailable = () => new DaemonError(501, "checkpoints_unavailable", "This daemon keeps no checkpoints");

  return app
    .get(
      "/session/:id/rewind/snapshots",
      async ({ params }) => {
        const session = deps.sessions.get(params.id);
        if (!seam) throw unavailable();
        return { snapshots: (await seam.load()).snapshots(session.id) };
      },
      {
        params: SessionIdParams,
        response: { 200: SnapshotsReply, ...errorResponses({ also: [404, 501] }) },
        detail: capability("session_rewind", { summary: "The session's turns with the files each changed (what a rewind can restore)" }),
      },
    )
    .post(
      "/session/:id/rewind",
      async ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        if (!rewinder) throw unavailable();
        return await rewinder.rewind(
          session,
          { promptId: body.promptId, rewindFiles: body.rewindFiles !== false, rewindConversation: body.rewindConversation !== false, force: body.force === true },
          clientId,
        );
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: RewindBody,
        response: { 200: RewindReply, ...errorResponses({ body: true, also: [404, 409, 501, 502, 504] }) },
        detail: capability("session_rewind", { summary: "Restore files, the conversation, or both to before a turn", "x-svc-strict": true }),
      },
    );
};
