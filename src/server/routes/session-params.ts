/** Shared pieces of the session routes: the `:id` schema and client-id checks. */
import { t } from "elysia";
import { CLIENT_ID_HEADER, parseClientIdHeader } from "../../sessions/client-ids.ts";
import type { LiveSession } from "../../sessions/live-session.ts";

export const SessionIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 512 }) });

/** `X-Svc-Client-Id`, which must be absent (anonymous) or registered on the session. */
export function registeredClient(session: LiveSession, request: Request): string | null {
  return session.clients.require(session.id, parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER)));
}
