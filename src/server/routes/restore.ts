/**
 * `POST /session/:id/load` and `POST /session/:id/resume`: bring a persisted session back (see
 * sessions/session-restore.ts). Shapes follow spec/protocol-notes.md §2.2.
 */
import { Elysia, t } from "elysia";
import { CLIENT_ID_HEADER, parseClientIdHeader } from "../../sessions/client-ids.ts";
import { SessionRestorer, type RestoreAction } from "../../sessions/session-restore.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ErrorBody } from "./history-schemas.ts";
import { SessionIdParams, notAnObject } from "./session-params.ts";

const RestoreBody = t.Object({}, { additionalProperties: true, error: notAnObject });

const RestoreReply = t.Object(
  {
    sessionId: t.String(),
    workspaceCwd: t.String(),
    attached: t.Boolean(),
    clientId: t.String(),
    createdAt: t.String(),
    state: t.Object({ models: t.Unknown(), modes: t.Unknown(), configOptions: t.Unknown() }),
    hasActivePrompt: t.Boolean(),
    hasRunningBackgroundTasks: t.Boolean(),
    lastEventId: t.Integer({ minimum: 0 }),
    eventEpoch: t.String(),
    restoredBy: t.String({ description: "`session/load` or `session/resume` (what the agent was asked), `seeded` (an agent offering neither got a fresh session seeded with the journal's transcript), or `live` (it already was)" }),
    compactedReplay: t.Optional(t.Array(t.Unknown(), { description: "load only: the newest journaled envelopes, oldest first" })),
    liveJournal: t.Optional(t.Array(t.Unknown())),
  },
  { additionalProperties: true },
);

const responses = { 200: RestoreReply, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody, 503: ErrorBody, 504: ErrorBody };

export const restoreRoutes = (deps: AppDeps) => {
  const { limits } = deps.config;
  const restorer = new SessionRestorer(deps.sessions, deps.sessions.store, {
    timeoutMs: limits.sessionRestoreTimeoutMs,
    maxReplayEvents: limits.maxJournalEvents,
    maxReplayBytes: limits.maxJournalBytes,
  });
  const handler =
    (action: RestoreAction) =>
    ({ params, request }: { params: { id: string }; request: Request }) =>
      restorer.restore(params.id, action, parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER)));

  return new Elysia({ name: "routes/restore" })
    .post("/session/:id/load", handler("load"), {
      params: SessionIdParams,
      body: t.Optional(RestoreBody),
      response: responses,
      detail: capability("session_load", { summary: "Restore a persisted session with a bounded replay of its journal" }),
    })
    .post("/session/:id/resume", handler("resume"), {
      params: SessionIdParams,
      body: t.Optional(RestoreBody),
      response: responses,
      detail: capability(["session_resume", "unstable_session_resume"], { summary: "Restore a persisted session without replay" }),
    });
};
