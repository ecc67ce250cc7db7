/**
 * Persisted sessions in bulk: `POST /sessions/archive`, `/sessions/unarchive`, `/sessions/delete`
 * (each id gets an outcome; live sessions are left alone) and `POST /sessions/catalog` (look
 * sessions up by id). See sessions/session-catalog.ts.
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { MAX_BULK_IDS, SessionCatalog, type BulkAction } from "../../sessions/session-catalog.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";

const ErrorBody = t.Object({ error: t.String(), code: t.Optional(t.String()) }, { additionalProperties: true });
const IDS_ERROR = `\`sessionIds\` must be an array of 1 to ${MAX_BULK_IDS} session ids`;
const idsError = () => new DaemonError(400, "invalid_session_ids", IDS_ERROR, { maxIds: MAX_BULK_IDS }).body();
const IdsBody = t.Object(
  { sessionIds: t.Array(t.String({ minLength: 1, maxLength: 512, error: idsError }), { minItems: 1, maxItems: MAX_BULK_IDS, error: idsError }) },
  { additionalProperties: true, error: idsError },
);
const BulkReply = t.Object({
  results: t.Array(t.Object({ sessionId: t.String(), outcome: t.Union([t.Literal("archived"), t.Literal("unarchived"), t.Literal("deleted"), t.Literal("not_found"), t.Literal("live")]) })),
});
const CatalogReply = t.Object({ sessions: t.Array(t.Record(t.String(), t.Unknown())), missing: t.Array(t.String()) });
const errors = { 400: ErrorBody, 503: ErrorBody };

const SUMMARIES: Record<BulkAction, string> = {
  archive: "Archive persisted sessions (hidden from the active list)",
  unarchive: "Unarchive persisted sessions",
  delete: "Delete persisted sessions and their transcripts; the database is compacted",
};

export const catalogRoutes = (deps: AppDeps) => {
  const catalog = new SessionCatalog(deps.sessions, deps.sessions.store);
  const bulk = (action: BulkAction) =>
    [
      `/sessions/${action}`,
      ({ body }: { body: { sessionIds: string[] } }) => catalog.bulk(action, body.sessionIds),
      { body: IdsBody, response: { 200: BulkReply, ...errors }, detail: capability("session_archive", { summary: SUMMARIES[action] }) },
    ] as const;
  return new Elysia({ name: "routes/catalog" })
    .post(...bulk("archive"))
    .post(...bulk("unarchive"))
    .post(...bulk("delete"))
    .post("/sessions/catalog", ({ body }) => catalog.lookup(body.sessionIds), {
      body: IdsBody,
      response: { 200: CatalogReply, ...errors },
      detail: capability("session_catalog_batch", { summary: "Look sessions up by id: live state, or what the catalog holds" }),
    });
};
