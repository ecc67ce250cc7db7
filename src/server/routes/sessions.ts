/**
 * Session lifecycle: create/attach, close, heartbeat, metadata, model switch. Shapes follow
 * spec/protocol-notes.md §2.1–2.5 and §2.18.
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { CLIENT_ID_HEADER, parseClientIdHeader } from "../../sessions/client-ids.ts";
import { MAX_DISPLAY_NAME } from "../../sessions/live-session.ts";
import { switchModel } from "../../sessions/model-selection.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { SessionIdParams, registeredClient } from "./session-params.ts";

/** Pull-request links kept per session; the oldest is dropped past it. */
const MAX_PRS = 20;

const CreateBody = t.Object(
  {
    cwd: t.Optional(t.String({ maxLength: 4096 })),
    sessionScope: t.Optional(t.String()),
    modelServiceId: t.Optional(t.String({ minLength: 1, maxLength: 512 })),
    startupConfig: t.Optional(t.Unknown()),
  },
  { additionalProperties: true },
);

const CreateResponse = t.Object({
  sessionId: t.String(),
  workspaceCwd: t.String(),
  attached: t.Boolean(),
  clientId: t.String(),
  createdAt: t.String(),
  hasActivePrompt: t.Optional(t.Boolean()),
  modelApplied: t.Optional(t.Boolean()),
  startupConfigApplied: t.Optional(t.Record(t.String(), t.Unknown())),
});

const invalidMetadata = (field: string, message: string) => new DaemonError(400, "invalid_metadata", message, { field });
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

function checkPr(pr: unknown): { number: number; url: string; state?: string } {
  const p = pr as { number?: unknown; url?: unknown; state?: unknown };
  if (!p || typeof p !== "object" || !Number.isSafeInteger(p.number) || (p.number as number) < 1) throw invalidMetadata("pr", "`pr.number` must be a whole number of at least 1");
  if (typeof p.url !== "string" || p.url.length > 2048 || !/^https?:\/\//i.test(p.url) || !URL.canParse(p.url)) throw invalidMetadata("pr", "`pr.url` must be an http(s) URL of at most 2048 characters");
  if (p.state !== undefined && !["open", "merged", "closed"].includes(p.state as string)) throw invalidMetadata("pr", "`pr.state` must be open, merged or closed");
  return { number: p.number as number, url: p.url, ...(p.state === undefined ? {} : { state: p.state as string }) };
}

export const sessionRoutes = (deps: AppDeps) =>
  new Elysia({ name: "routes/sessions" })
    .post(
      "/session",
      async ({ body, request }) => {
        const clientHeader = parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER));
        return await deps.sessions.create(body ?? {}, clientHeader);
      },
      {
        body: t.Optional(CreateBody),
        response: CreateResponse,
        detail: capability(["session_create", "session_scope_override", "session_startup_config", "client_identity"], {
          summary: "Create a session, or attach to the workspace's default one",
        }),
      },
    )
    .delete(
      "/session/:id",
      async ({ params, request, set }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        await deps.sessions.close(session.id, "client_close", clientId ?? undefined);
        set.status = 204;
        return null;
      },
      { params: SessionIdParams, detail: capability("session_close", { summary: "Close a live session (204)" }) },
    )
    .post(
      "/session/:id/heartbeat",
      ({ params, request }) => deps.sessions.heartbeat(params.id, parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER))),
      {
        params: SessionIdParams,
        body: t.Optional(t.Unknown()),
        response: t.Object({ sessionId: t.String(), clientId: t.Optional(t.String()), lastSeenAt: t.Number() }),
        detail: capability("client_heartbeat", { summary: "Defer the idle reaper" }),
      },
    )
    .patch(
      "/session/:id/metadata",
      ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const input = (body ?? {}) as { displayName?: unknown; pr?: unknown };
        const changed: Record<string, unknown> = {};
        if (input.displayName !== undefined) {
          if (typeof input.displayName !== "string" || input.displayName.trim() === "") throw invalidMetadata("displayName", "`displayName` must be a non-empty string");
          if (CONTROL_CHARS.test(input.displayName)) throw invalidMetadata("displayName", "`displayName` must not contain control characters");
          session.metadata.displayName = input.displayName.trim().slice(0, MAX_DISPLAY_NAME);
          session.metadata.titleSource = "manual";
          Object.assign(changed, { displayName: session.metadata.displayName, titleSource: "manual" });
        }
        if (input.pr !== undefined) {
          const pr = checkPr(input.pr);
          const prs = (session.metadata.prs ?? []).filter((p) => p.number !== pr.number);
          prs.push(pr);
          session.metadata.prs = prs.slice(-MAX_PRS);
          changed.prs = session.metadata.prs;
        }
        if (Object.keys(changed).length > 0)
          session.publish("session_metadata_updated", { sessionId: session.id, ...changed }, clientId ? { originatorClientId: clientId } : {});
        return {
          sessionId: session.id,
          ...(session.metadata.displayName !== undefined ? { displayName: session.metadata.displayName } : {}),
          ...(session.metadata.prs ? { prs: session.metadata.prs } : {}),
        };
      },
      {
        params: SessionIdParams,
        body: t.Optional(t.Unknown()),
        detail: capability("session_metadata", { summary: "Set the display name or a pull-request link" }),
      },
    )
    .post(
      "/session/:id/model",
      async ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const modelId = (body as { modelId?: unknown } | undefined)?.modelId;
        if (typeof modelId !== "string" || modelId.trim() === "") throw new DaemonError(400, null, "`modelId` is required and must be a non-empty string");
        const result = await switchModel(session, modelId, clientId);
        return { ...result, sessionId: session.id, modelId };
      },
      {
        params: SessionIdParams,
        body: t.Optional(t.Unknown()),
        detail: capability("session_set_model", { summary: "Switch the session's model" }),
      },
    );
