/** Shared pieces of the session routes: the `:id` schema, whole numbers, the object-body error and client-id checks. */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { CLIENT_ID_HEADER, parseClientIdHeader } from "../../sessions/client-ids.ts";
import type { LiveSession } from "../../sessions/live-session.ts";

export const SessionIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 512 }) });

/**
 * A whole number in a JSON body: a plain TypeBox integer (`{type: "integer"}`). Not Elysia's
 * `t.Integer`, which is built for query strings: it also takes a numeric string (`"100"` would
 * pass) and documents the field as `string | integer`. A JSON body says what it means.
 */
export const wholeNumber = (options: { minimum: number; description?: string; error?: () => unknown }) =>
  Type.Integer({ maximum: Number.MAX_SAFE_INTEGER, ...options });

/** The schema `error` of a body that must be a JSON object and is not (an empty body reads as `{}`). */
export const notAnObject = () => new DaemonError(400, "invalid_request", "The request body must be a JSON object").body();

/** `X-Svc-Client-Id`, which must be absent (anonymous) or registered on the session; using it refreshes it. */
export function registeredClient(session: LiveSession, request: Request): string | null {
  return session.clients.use(parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER)));
}

/**
 * `X-Svc-Client-Id` of a workspace mutation that names its originator: required (400
 * `missing_client_id`) and registered on a live session of the workspace (400 `invalid_client_id`
 * otherwise), as the reference daemon checks it; using it refreshes it.
 */
export function workspaceClient(sessions: Iterable<LiveSession>, request: Request, what: string): string {
  const clientId = optionalWorkspaceClient(sessions, request);
  if (clientId === null) throw new DaemonError(400, "missing_client_id", `\`X-Svc-Client-Id\` header is required for ${what}`);
  return clientId;
}

/** `X-Svc-Client-Id` of a workspace mutation where it is optional: absent (null), or registered on a live session of the workspace (400 `invalid_client_id` otherwise). */
export function optionalWorkspaceClient(sessions: Iterable<LiveSession>, request: Request): string | null {
  const clientId = parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER));
  if (clientId === null) return null;
  for (const session of sessions) if (session.clients.has(clientId)) return session.clients.use(clientId) ?? clientId;
  throw new DaemonError(400, "invalid_client_id", `Client id "${clientId}" is not registered for this workspace`, { clientId });
}
