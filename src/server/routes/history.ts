/**
 * Session history from the store: `GET /session/:id/transcript` (paged), `GET /session/:id/export`
 * (html, md, json, jsonl, as an attachment), and their workspace-qualified forms under
 * `/workspaces/:workspace/session/:id/…` (`export` for active sessions, `archive/export` for archived ones). They work for closed sessions and never start an agent.
 * The legacy export is `legacy-primary` (the primary workspace's sessions only); the legacy
 * transcript is `persisted-workspace` (any session the store holds).
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { sessionNotFound } from "../../sessions/session-errors.ts";
import { DEFAULT_TRANSCRIPT_LIMIT, MAX_TRANSCRIPT_LIMIT, SessionHistory } from "../../sessions/session-history.ts";
import { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from "../../sessions/export-formats.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponseObjects, errorResponses } from "../schemas/error-statuses.ts";
import { queryInteger } from "../schemas/query-integer.ts";
import { WorkspaceSelector } from "./history-schemas.ts";
import { QUALIFIED_TAG } from "./workspace-forms.ts";
import { SessionIdParams } from "./session-params.ts";
import { loadExportRenderer } from "../lazy-seams.ts";
import type { RouteApp } from "./route-app.ts";

const invalidLimit = () =>
  new DaemonError(400, "invalid_transcript_limit", `\`limit\` must be a whole number from 1 to ${MAX_TRANSCRIPT_LIMIT}`, { maxLimit: MAX_TRANSCRIPT_LIMIT });

/** The schema `error` of `format`: the value sent and the formats there are are named in the answer. */
const invalidFormat = ({ found }: { found?: unknown }) =>
  new DaemonError(400, "invalid_export_format", "Invalid export format", { format: (found as { format?: unknown } | undefined)?.format, allowedFormats: [...EXPORT_FORMATS] }).body();

const TranscriptQuery = t.Object({
  limit: t.Optional(queryInteger(1, MAX_TRANSCRIPT_LIMIT, `Records per page (default ${DEFAULT_TRANSCRIPT_LIMIT})`, invalidLimit)),
  cursor: t.Optional(t.String({ description: "`nextCursor` of the previous page" })),
});
const TranscriptBody = t.Object({
  v: t.Literal(1),
  sessionId: t.String(),
  events: t.Array(t.Unknown(), { description: "Event envelopes as their subscribers received them, oldest first" }),
  hasMore: t.Boolean(),
  nextCursor: t.Optional(t.String({ description: "present when another page follows" })),
});
// Literal unions, not `t.UnionEnum`: that one defaults a missing value to its first member.
const ExportQuery = t.Object({
  format: t.Optional(t.Union([t.Literal("html"), t.Literal("md"), t.Literal("json"), t.Literal("jsonl")] satisfies { const: ExportFormat }[], { description: "html (default), md, json or jsonl", error: invalidFormat })),
});
const WorkspaceSessionParams = t.Object({
  workspace: WorkspaceSelector,
  id: SessionIdParams.properties.id,
});

/**
 * 404 `session_not_found` (also for a session of another workspace); on export, 413
 * `transcript_too_large` (the journal passes MAX_EXPORT_BYTES) and 429 `too_many_exports`.
 */
const transcriptResponses = { 200: TranscriptBody, ...errorResponses({ also: [404] }) };
/** The export's media type follows `format`, so its responses are declared in `detail` (see errorResponseObjects). */
const EXPORT_MEDIA = {
  html: { type: "string", description: "`format=html` (default): a self-contained page" },
  md: { type: "string", description: "`format=md`: Markdown" },
  json: { type: "object", description: "`format=json`: the session and its event envelopes" },
  jsonl: { type: "string", description: "`format=jsonl`: one event envelope per line" },
} as const satisfies Record<ExportFormat, object>;
const exportResponses = {
  200: {
    description: "The export document, as an attachment",
    headers: { "Content-Disposition": { description: "`attachment; filename=\"svc-export-<time>.<format>\"`", schema: { type: "string" } } } as const,
    content: Object.fromEntries(EXPORT_FORMATS.map((f) => [EXPORT_CONTENT_TYPES[f].split(";")[0]!, { schema: EXPORT_MEDIA[f] }])),
  },
  ...errorResponseObjects({ also: [404] }),
};

/**
 * Exports one daemon streams at once: each holds a page of journal and its rendering, and takes a
 * share of the event loop. One more answers 429 `too_many_exports` with Retry-After.
 */
export const MAX_CONCURRENT_EXPORTS = 2;
const EXPORT_RETRY_AFTER_SECONDS = 2;

/** `Content-Disposition` file name: `svc-export-<ISO time with dashes>.<ext>`. */
const fileName = (format: ExportFormat, now: Date) => `svc-export-${now.toISOString().replace(/[:.]/g, "-")}.${format}`;

export const historyRoutes = (app: RouteApp, deps: AppDeps) => {
  const history = new SessionHistory(deps.sessions, deps.sessions.store);

  /**
   * The qualified routes' checks, in the reference's order: the workspace the selector names (400
   * `invalid_workspace`, 404 `workspace_not_found`); the session, 404 unless it is that workspace's
   * and in the archive state the route serves (`any`, `active` or `archived`); 403
   * `untrusted_workspace` for a registered workspace that is not trusted (the primary's history is
   * readable whatever its trust, as on the legacy routes).
   */
  function inWorkspace(selector: string, sessionId: string, state: "any" | "active" | "archived"): void {
    const scope = deps.runtimes.resolve(selector);
    const session = history.find(sessionId);
    if (session.workspace !== scope.path) throw sessionNotFound(sessionId);
    const archived = session.row?.archived === true;
    if ((state === "active" && archived) || (state === "archived" && !archived)) throw sessionNotFound(sessionId);
    if (!scope.primary && !scope.trust.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
  }

  /**
   * The legacy export's check (scope `legacy-primary`): a session of another workspace is 404
   * `session_not_found`, as the reference's primary runtime answers it; its qualified form serves it.
   */
  function inPrimary(sessionId: string): void {
    if (history.find(sessionId).workspace !== deps.runtimes.primaryScope.path) throw sessionNotFound(sessionId);
  }

  /** Exports streaming now; past MAX_CONCURRENT_EXPORTS a new one answers 429 `too_many_exports`. */
  let exporting = 0;

  /**
   * The export as a stream: the journal is read and rendered a page at a time as the client takes
   * it, with a turn of the event loop between pages, so one export holds one page and its
   * rendering and other requests are answered while it runs.
   */
  async function exportResponse(sessionId: string, format: ExportFormat = "html"): Promise<Response> {
    const { exportPieces, EXPORT_HTML_CSP } = await loadExportRenderer();
    if (exporting >= MAX_CONCURRENT_EXPORTS)
      throw new DaemonError(429, "too_many_exports", "Too many exports are running; retry shortly", { maxConcurrentExports: MAX_CONCURRENT_EXPORTS }, EXPORT_RETRY_AFTER_SECONDS);
    const { session, pages } = history.exportData(sessionId);
    const pieces = exportPieces(format, session, pages);
    const encoder = new TextEncoder();
    exporting++;
    let held = true;
    const release = () => {
      if (held) exporting--;
      held = false;
    };
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          await new Promise((resolve) => setImmediate(resolve));
          try {
            const next = pieces.next();
            if (next.done) {
              release();
              controller.close();
            } else controller.enqueue(encoder.encode(next.value));
          } catch (error) {
            release();
            controller.error(error);
          }
        },
        cancel() {
          release();
        },
      },
      // One rendered page waits for the client at most.
      { highWaterMark: 1 },
    );
    const headers: Record<string, string> = {
      "Content-Type": EXPORT_CONTENT_TYPES[format],
      "Content-Disposition": `attachment; filename="${fileName(format, new Date())}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    };
    if (format === "html") headers["Content-Security-Policy"] = `${EXPORT_HTML_CSP}; sandbox`;
    return new Response(body, { headers });
  }

  return app
    .get("/session/:id/transcript", ({ params, query }) => history.transcript(params.id, query.limit, query.cursor), {
      params: SessionIdParams,
      query: TranscriptQuery,
      response: transcriptResponses,
      detail: capability("session_transcript", { summary: "A session's recorded events, paged; works for closed sessions" }),
    })
    .get(
      "/session/:id/export",
      ({ params, query }) => {
        inPrimary(params.id);
        return exportResponse(params.id, query.format);
      },
      {
      params: SessionIdParams,
      query: ExportQuery,
        detail: { ...capability("session_export", { summary: "A session's transcript as an attachment (html, md, json, jsonl), of the primary workspace's sessions" }), responses: exportResponses },
      },
    )
    .get(
      "/workspaces/:workspace/session/:id/transcript",
      ({ params, query }) => {
        inWorkspace(params.workspace, params.id, "any");
        return history.transcript(params.id, query.limit, query.cursor);
      },
      {
        params: WorkspaceSessionParams,
        query: TranscriptQuery,
        response: transcriptResponses,
        detail: capability(["workspace_persisted_transcript", QUALIFIED_TAG], { summary: "Transcript of a session of the named workspace" }),
      },
    )
    .get(
      "/workspaces/:workspace/session/:id/export",
      ({ params, query }) => {
        inWorkspace(params.workspace, params.id, "active");
        return exportResponse(params.id, query.format);
      },
      {
        params: WorkspaceSessionParams,
        query: ExportQuery,
        detail: { ...capability(["workspace_session_export", QUALIFIED_TAG], { summary: "Export of an active (not archived) session of the named workspace" }), responses: exportResponses },
      },
    )
    .get(
      "/workspaces/:workspace/session/:id/archive/export",
      ({ params, query }) => {
        inWorkspace(params.workspace, params.id, "archived");
        return exportResponse(params.id, query.format);
      },
      {
        params: WorkspaceSessionParams,
        query: ExportQuery,
        detail: {
          ...capability(["workspace_archived_session_export", QUALIFIED_TAG], { summary: "Export of an archived session of the named workspace" }),
          responses: exportResponses,
        },
      },
    );
};
