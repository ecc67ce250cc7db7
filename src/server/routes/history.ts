/**
 * Session history from the store: `GET /session/:id/transcript` (paged), `GET /session/:id/export`
 * (html, md, json, jsonl, as an attachment), and their workspace-qualified forms under
 * `/workspaces/:workspace/session/:id/…`. They work for closed sessions and never start an agent.
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { sessionNotFound } from "../../sessions/session-manager.ts";
import { MAX_TRANSCRIPT_LIMIT, SessionHistory } from "../../sessions/session-history.ts";
import { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, EXPORT_HTML_CSP, renderExport, type ExportFormat } from "../../sessions/transcript-export.ts";
import { workspaceId } from "../../workspace/workspace-id.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ErrorBody, WorkspaceSelector } from "./history-schemas.ts";
import { SessionIdParams } from "./session-params.ts";

const TranscriptQuery = t.Object({
  limit: t.Optional(t.String({ description: `Records per page, 1 to ${MAX_TRANSCRIPT_LIMIT} (default 100)` })),
  cursor: t.Optional(t.String({ description: "`nextCursor` of the previous page" })),
});
const TranscriptBody = t.Object({
  v: t.Literal(1),
  sessionId: t.String(),
  events: t.Array(t.Unknown(), { description: "Event envelopes as their subscribers received them, oldest first" }),
  hasMore: t.Boolean(),
  nextCursor: t.Optional(t.String()),
});
const ExportQuery = t.Object({ format: t.Optional(t.String({ description: "html (default), md, json or jsonl" })) });
const WorkspaceSessionParams = t.Object({
  workspace: WorkspaceSelector,
  id: SessionIdParams.properties.id,
});

const transcriptResponses = { 200: TranscriptBody, 400: ErrorBody, 404: ErrorBody };
const exportResponses = { 200: t.String({ description: "The export document (attachment)" }), 400: ErrorBody, 404: ErrorBody, 413: ErrorBody };

function parseFormat(raw: string | undefined): ExportFormat {
  const format = raw ?? "html";
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new DaemonError(400, "invalid_export_format", "Invalid export format", { format, allowedFormats: [...EXPORT_FORMATS] });
  return format as ExportFormat;
}

/** `Content-Disposition` file name: `svc-export-<ISO time with dashes>.<ext>`. */
const fileName = (format: ExportFormat, now: Date) => `svc-export-${now.toISOString().replace(/[:.]/g, "-")}.${format}`;

export const historyRoutes = (deps: AppDeps) => {
  const history = new SessionHistory(deps.sessions, deps.sessions.store);

  /** 404 unless the session belongs to the workspace the path names (by id or by path). */
  function inWorkspace(selector: string, sessionId: string): void {
    const { workspace } = history.find(sessionId);
    if (selector !== workspace && selector !== workspaceId(workspace)) throw sessionNotFound(sessionId);
  }

  function exportResponse(sessionId: string, formatRaw: string | undefined): Response {
    const format = parseFormat(formatRaw);
    const { session, records } = history.exportData(sessionId);
    const headers: Record<string, string> = {
      "Content-Type": EXPORT_CONTENT_TYPES[format],
      "Content-Disposition": `attachment; filename="${fileName(format, new Date())}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    };
    if (format === "html") headers["Content-Security-Policy"] = `${EXPORT_HTML_CSP}; sandbox`;
    return new Response(renderExport(format, session, records), { headers });
  }

  return new Elysia({ name: "routes/history" })
    .get("/session/:id/transcript", ({ params, query }) => history.transcript(params.id, query.limit, query.cursor), {
      params: SessionIdParams,
      query: TranscriptQuery,
      response: transcriptResponses,
      detail: capability("session_transcript", { summary: "A session's recorded events, paged; works for closed sessions" }),
    })
    .get("/session/:id/export", ({ params, query }) => exportResponse(params.id, query.format), {
      params: SessionIdParams,
      query: ExportQuery,
      response: exportResponses,
      detail: capability("session_export", { summary: "A session's transcript as an attachment (html, md, json, jsonl)" }),
    })
    .get(
      "/workspaces/:workspace/session/:id/transcript",
      ({ params, query }) => {
        inWorkspace(params.workspace, params.id);
        return history.transcript(params.id, query.limit, query.cursor);
      },
      {
        params: WorkspaceSessionParams,
        query: TranscriptQuery,
        response: transcriptResponses,
        detail: capability("workspace_persisted_transcript", { summary: "Transcript of a session of the named workspace" }),
      },
    )
    .get(
      "/workspaces/:workspace/session/:id/export",
      ({ params, query }) => {
        inWorkspace(params.workspace, params.id);
        return exportResponse(params.id, query.format);
      },
      {
        params: WorkspaceSessionParams,
        query: ExportQuery,
        response: exportResponses,
        detail: capability("workspace_session_export", { summary: "Export of a session of the named workspace" }),
      },
    );
};
