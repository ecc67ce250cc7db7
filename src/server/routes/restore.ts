/**
 * `POST /session/:id/load` and `POST /session/:id/resume`: bring a persisted session back (see
 * sessions/session-restore.ts). Shapes follow spec/protocol-notes.md §2.2.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { CLIENT_ID_HEADER, parseClientIdHeader } from "../../sessions/client-ids.ts";
import { JournalGrowthPool, type GrowthLease } from "../../sessions/journal-growth.ts";
import { JournalReplay } from "../../sessions/journal-replay.ts";
import { SessionRestorer, type RestoreAction } from "../../sessions/session-restore.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { SessionIdParams, notAnObject } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const RestoreBody = t.Object({}, { additionalProperties: true, error: notAnObject });

/** A journaled envelope as `load` replays it: `_meta.eventEpoch` names the epoch its `id` counts in. A leading `history_truncated` marker has neither. */
const ReplayItem = t.Object(
  {
    id: t.Optional(Type.Integer({ minimum: 1 })),
    v: t.Literal(1),
    type: t.String(),
    data: t.Unknown(),
    promptId: t.Optional(t.String()),
    originatorClientId: t.Optional(t.String()),
    _meta: t.Object(
      { serverTimestamp: t.Number(), eventEpoch: t.Optional(t.String({ description: "The epoch the event was published in (absent on the truncation marker)" })) },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
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
    lastEventId: Type.Integer({ minimum: 0, description: "The newest event id in `eventEpoch` (the restored session's new epoch: 0 until it publishes)" }),
    eventEpoch: t.String({ description: "The epoch of the live session; `Last-Event-ID` of its stream counts in it" }),
    restoredBy: t.String({ description: "`session/load` or `session/resume` (what the agent was asked), `seeded` (an agent offering neither got a fresh session seeded with the journal's transcript), or `live` (it already was)" }),
    compactedReplay: t.Optional(t.Array(ReplayItem, { description: "load only: the newest journaled envelopes, oldest first, across epochs (ids restart in each)" })),
    liveJournal: t.Optional(t.Array(t.Unknown(), { description: "load only: envelopes published while the replay was read (none yet)" })),
    worktree: t.Optional(t.Object({ slug: t.String(), path: t.String(), branch: t.String() }, { description: "the git worktree the session runs in, when it does" })),
    worktreeState: t.Optional(t.Literal("persisted-v1")),
    currentCwd: t.Optional(t.String({ description: "with `worktree`: its checkout, where the session came back" })),
  },
  { description: "The restored session's state" },
);

/**
 * 404 `session_not_found`; 409 `session_archived`, `restore_unsupported`, `restore_in_progress`,
 * `session_conflict`, `worktree_session_superseded` (a worktree reset replaced it: `replacementSessionId`),
 * `worktree_missing` (its worktree checkout is gone or moved); 502 `agent_restore_failed` (the agent's load/resume error, its message
 * redacted; "session not found" falls back to a seeded session instead) or `agent_protocol_error`; 503 the agent cannot start or a session limit;
 * 504 `session_restore_timeout`.
 */
const responses = { 200: RestoreReply, ...errorResponses({ body: true, also: [404, 409, 502, 504] }) };

export const restoreRoutes = (app: RouteApp, deps: AppDeps) => {
  const { limits } = deps.config;
  const pool = new JournalGrowthPool(limits.journalGrowthPoolBytes);
  const replay = new JournalReplay(deps.sessions.store, { maxEvents: limits.maxJournalEvents, maxBytes: limits.maxJournalBytes }, pool);
  const restorer = new SessionRestorer(deps.sessions, deps.sessions.store, limits.sessionRestoreTimeoutMs, replay);
  /** A load's growth lease, held until its reply has been sent. */
  const leases = new WeakMap<Request, GrowthLease>();
  const handler =
    (action: RestoreAction) =>
    async ({ params, request }: { params: { id: string }; request: Request }) => {
      const { reply, lease } = await restorer.restore(params.id, action, parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER)));
      if (lease) leases.set(request, lease);
      return reply;
    };
  const released = ({ request }: { request: Request }) => leases.get(request)?.release();

  return app
    .post("/session/:id/load", handler("load"), {
      params: SessionIdParams,
      headers: ClientIdHeaders,
      body: RestoreBody,
      response: responses,
      afterResponse: released,
      detail: capability("session_load", { summary: "Restore a persisted session with a bounded replay of its journal" }),
    })
    .post("/session/:id/resume", handler("resume"), {
      params: SessionIdParams,
      headers: ClientIdHeaders,
      body: RestoreBody,
      response: responses,
      detail: capability(["session_resume", "unstable_session_resume"], { summary: "Restore a persisted session without replay" }),
    });
};
