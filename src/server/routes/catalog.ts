/**
 * Persisted sessions in bulk: `POST /sessions/archive`, `/sessions/unarchive`, `/sessions/delete`
 * (each id gets an outcome; live sessions are left alone) and `POST /sessions/catalog` (look
 * sessions up by id), and the workspace-qualified lists `GET /workspaces/:workspace/sessions` (persisted
 * and live, like `/workspace/:id/sessions`) and `.../sessions/live-state` (live sessions only), and
 * the session counts `GET /workspace/:id/session-info` and `GET /workspaces/:workspace/session-info`.
 * See sessions/session-catalog.ts and `SessionHistory.info`. None of them starts a child.
 */
import { Type } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { MAX_BULK_IDS, SessionCatalog, type BulkAction } from "../../sessions/session-catalog.ts";
import { SessionHistory } from "../../sessions/session-history.ts";
import { sessionSummary } from "../../sessions/session-summary.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { SESSION_LIST_REPLY, apiModelNames } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { LiveStateItem, SessionListItem } from "../schemas/session-list.ts";
import { SessionListQuery, WorkspaceSelector, listFilters } from "./history-schemas.ts";

const IDS_ERROR = `\`sessionIds\` must be an array of 1 to ${MAX_BULK_IDS} session ids`;
const idsError = () => new DaemonError(400, "invalid_session_ids", IDS_ERROR, { maxIds: MAX_BULK_IDS }).body();
const IdsBody = t.Object(
  { sessionIds: t.Array(t.String({ minLength: 1, maxLength: 512, error: idsError }), { minItems: 1, maxItems: MAX_BULK_IDS, error: idsError }) },
  { additionalProperties: true, error: idsError },
);
const BulkReply = t.Object({
  results: t.Array(t.Object({ sessionId: t.String(), outcome: t.Union([t.Literal("archived"), t.Literal("unarchived"), t.Literal("deleted"), t.Literal("not_found"), t.Literal("live")]) })),
});
const CatalogReply = t.Object({
  sessions: t.Array(SessionListItem, { description: "The sessions found, in the order asked" }),
  missing: t.Array(t.String(), { description: "Ids neither live nor in the catalog" }),
});
/** The reference daemon's session-info document (0.24.4): counts of the workspace's sessions. */
const SessionInfoReply = t.Object(
  {
    active: Type.Integer({ minimum: 0, description: "Sessions not archived: catalog rows, plus live sessions the catalog lacks" }),
    archived: Type.Integer({ minimum: 0, description: "Archived sessions" }),
    total: Type.Integer({ minimum: 0, description: "`active` + `archived`" }),
    live: Type.Integer({ minimum: 0, description: "Sessions live in this daemon now" }),
    expensive: t.Literal(true, { description: "The count reads the workspace's whole catalog: do not poll it in a tight loop" }),
    cost: t.Literal("disk_scan"),
    truncated: t.Optional(t.Literal(true, { description: "The count stopped early (never, in this daemon: the catalog is counted whole)" })),
  },
  { description: "How many sessions the workspace has" },
);
/** 503 `store_unavailable` (already a front-door status): this daemon keeps no session history. */
const bodyErrors = errorResponses({ body: true });
/** Also 409 `restore_in_progress` (with `Retry-After`): a named session is being restored; nothing changed. */
const bulkErrors = errorResponses({ body: true, also: [409] });
/** 404 `workspace_not_found`. */
const listErrors = errorResponses({ also: [404] });

const SUMMARIES: Record<BulkAction, string> = {
  archive: "Archive persisted sessions (hidden from the active list)",
  unarchive: "Unarchive persisted sessions",
  delete: "Delete persisted sessions and their transcripts; the database is compacted",
};

const WorkspaceParams = t.Object({ workspace: WorkspaceSelector });

export const catalogRoutes = (deps: AppDeps) => {
  const catalog = new SessionCatalog(deps.sessions, deps.sessions.store);
  const history = new SessionHistory(deps.sessions, deps.sessions.store);

  const workspaceOf = (selector: string, param?: string) => deps.runtimes.resolve(selector, param).path;

  const bulk = (action: BulkAction) =>
    [
      `/sessions/${action}`,
      ({ body }: { body: { sessionIds: string[] } }) => catalog.bulk(action, body.sessionIds),
      { body: IdsBody, response: { 200: BulkReply, ...bulkErrors }, detail: capability("session_archive", { summary: SUMMARIES[action] }) },
    ] as const;
  return new Elysia({ name: "routes/catalog" })
    .use(apiModelNames)
    .post(...bulk("archive"))
    .post(...bulk("unarchive"))
    .post(...bulk("delete"))
    .post("/sessions/catalog", ({ body }) => catalog.lookup(body.sessionIds), {
      body: IdsBody,
      response: { 200: CatalogReply, ...bodyErrors },
      detail: capability("session_catalog_batch", { summary: "Look sessions up by id: live state, or what the catalog holds" }),
    })
    .get(
      "/workspaces/:workspace/sessions",
      ({ params, query }) => {
        const workspace = workspaceOf(params.workspace);
        return history.list(workspace, query.archiveState === "archived", query.size, query.cursor, listFilters(query));
      },
      {
        params: WorkspaceParams,
        query: SessionListQuery,
        response: { 200: SESSION_LIST_REPLY, ...listErrors },
        detail: capability("session_list", { summary: "Sessions of the named workspace, persisted and live, newest first" }),
      },
    )
    .get(
      "/workspaces/:workspace/sessions/live-state",
      ({ params }) => {
        const workspace = workspaceOf(params.workspace);
        return { v: 1 as const, sessions: [...deps.sessions.all()].filter((s) => s.workspaceCwd === workspace).map((s) => ({ ...sessionSummary(s, { listEntry: true }), live: true as const })) };
      },
      {
        params: WorkspaceParams,
        response: { 200: t.Object({ v: t.Literal(1), sessions: t.Array(LiveStateItem) }), ...listErrors },
        detail: capability("workspace_session_live_state", { summary: "Live state of the named workspace's live sessions (reads memory only)" }),
      },
    )
    .get("/workspace/:id/session-info", ({ params }) => history.info(workspaceOf(params.id, ":id")), {
      params: t.Object({ id: WorkspaceSelector }),
      response: { 200: SessionInfoReply, ...listErrors },
      detail: capability("session_info", { summary: "How many sessions a workspace has: active, archived, live (reads the catalog; do not poll)" }),
    })
    .get("/workspaces/:workspace/session-info", ({ params }) => history.info(workspaceOf(params.workspace)), {
      params: WorkspaceParams,
      response: { 200: SessionInfoReply, ...listErrors },
      detail: capability("session_info", { summary: "How many sessions the named workspace has: active, archived, live (reads the catalog; do not poll)" }),
    });
};
