/**
 * Persisted sessions in bulk: `POST /sessions/archive`, `/sessions/unarchive`, `/sessions/delete`
 * (each id gets an outcome; live sessions are left alone) and `POST /sessions/catalog` (look
 * sessions up by id); a workspace's session list (persisted and live) and counts, each defined once
 * and mounted as `GET /workspace/:id/{sessions,session-info}` and `/workspaces/:workspace/…`; and
 * `.../sessions/live-state` (live sessions only). Each answers for the resolved workspace's path.
 * See sessions/session-catalog.ts and `SessionHistory.info`. None of them starts a child.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { MAX_BULK_IDS, SessionCatalog, type BulkAction } from "../../sessions/session-catalog.ts";
import { DEFAULT_LIST_SIZE, SessionHistory } from "../../sessions/session-history.ts";
import { SessionOrganization } from "../../sessions/organization.ts";
import { sessionSummary } from "../../sessions/session-summary.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { SESSION_LIST_REPLY } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { LiveStateItem, SessionListItem } from "../schemas/session-list.ts";
import type { WorkspaceScope } from "../../workspace-registry/workspace-scope.ts";
import { SessionListQuery, listFilters } from "./history-schemas.ts";
import { QUALIFIED_TAG, QualifiedParams } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

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

const WorkspaceParams = QualifiedParams;
/** `:id` of `/workspace/:id/…`: a workspace id or absolute path (URL-encoded), checked by pattern. */
const IdParams = t.Object({
  id: t.String({
    maxLength: 4096,
    pattern: "^(?:[0-9a-f]{16}|/[\\s\\S]*)$",
    description: "workspace id (16 hex digits) or absolute path, URL-encoded",
    error: () => new DaemonError(400, "invalid_workspace", "`:id` must decode to a workspace id or absolute path").body(),
  }),
});

export const catalogRoutes = (app: RouteApp, deps: AppDeps) => {
  const catalog = new SessionCatalog(deps.sessions, deps.sessions.store);
  const history = new SessionHistory(deps.sessions, deps.sessions.store);
  const organization = new SessionOrganization(deps.sessions, deps.sessions.store);

  const bulk = (action: BulkAction) =>
    [
      `/sessions/${action}`,
      ({ body }: { body: { sessionIds: string[] } }) => catalog.bulk(action, body.sessionIds),
      { body: IdsBody, response: { 200: BulkReply, ...bulkErrors }, detail: capability("session_archive", { summary: SUMMARIES[action] }) },
    ] as const;
  app
    .post(...bulk("archive"))
    .post(...bulk("unarchive"))
    .post(...bulk("delete"))
    .post("/sessions/catalog", ({ body }) => catalog.lookup(body.sessionIds), {
      body: IdsBody,
      response: { 200: CatalogReply, ...bodyErrors },
      detail: capability("session_catalog_batch", { summary: "Look sessions up by id: live state, or what the catalog holds" }),
    });
  for (const form of selectedForms(deps)) workspaceListRoutes(app, history, organization, form);
  return app.get(
    "/workspaces/:workspace/sessions/live-state",
    ({ params }) => {
      const workspace = deps.runtimes.resolve(params.workspace).path;
      return { v: 1 as const, sessions: [...deps.sessions.all()].filter((s) => s.workspaceCwd === workspace).map((s) => ({ ...sessionSummary(s, { listEntry: true }), live: true as const })) };
    },
    {
      params: WorkspaceParams,
      response: { 200: t.Object({ v: t.Literal(1), sessions: t.Array(LiveStateItem) }), ...listErrors },
      detail: capability(["workspace_session_live_state", QUALIFIED_TAG], { summary: "Live state of the named workspace's live sessions (reads memory only)" }),
    },
  );
};

/** The id-selected form `/workspace/:id/…` and the qualified form `/workspaces/:workspace/…` of the session list and counts. */
export interface SelectedForm {
  readonly name: string;
  readonly prefix: string;
  readonly params: typeof IdParams | typeof WorkspaceParams;
  scope(params: unknown): WorkspaceScope;
  readonly tags: readonly string[];
}

export function selectedForms(deps: AppDeps): readonly [SelectedForm, SelectedForm] {
  return [
    { name: "id", prefix: "/workspace/:id", params: IdParams, scope: (p) => deps.runtimes.resolve((p as { id: string }).id, ":id"), tags: [] },
    { name: "qualified", prefix: "/workspaces/:workspace", params: WorkspaceParams, scope: (p) => deps.runtimes.resolve((p as { workspace: string }).workspace), tags: [QUALIFIED_TAG] },
  ];
}

function workspaceListRoutes(app: RouteApp, history: SessionHistory, organization: SessionOrganization, form: SelectedForm) {
  return app
    .get(
      `${form.prefix}/sessions`,
      ({ params, query }) => {
        const path = form.scope(params).path;
        const archived = query.archiveState === "archived";
        const filters = listFilters(query);
        return filters.organized
          ? organization.list(path, archived, query.size ?? DEFAULT_LIST_SIZE, query.cursor, filters.group, filters.source)
          : history.list(path, archived, query.size, query.cursor, filters);
      },
      {
        params: form.params,
        query: SessionListQuery,
        response: { 200: SESSION_LIST_REPLY, ...listErrors },
        detail: capability(["session_list", ...form.tags], { summary: "Sessions of a workspace, persisted and live, newest first" }),
      },
    )
    .get(`${form.prefix}/session-info`, ({ params }) => history.info(form.scope(params).path), {
      params: form.params,
      response: { 200: SessionInfoReply, ...listErrors },
      detail: capability(["session_info", ...form.tags], { summary: "How many sessions a workspace has: active, archived, live (reads the catalog; do not poll)" }),
    });
}
