/**
 * `GET /session/:id/events`: the session's SSE stream with Last-Event-ID replay. The router runs
 * this handler for `HEAD` too, which answers the stream's headers (and the GET's 404/400) without
 * subscribing: no replay, no subscriber or connection slot, nothing left open. (So a HEAD cannot
 * tell whether the subscriber limit would refuse a GET.)
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { DEFAULT_MAX_QUEUED, MAX_MAX_QUEUED, MIN_MAX_QUEUED } from "../../events/event-bus.ts";
import { CLIENT_ID_HEADER } from "../../sessions/client-ids.ts";
import { MAX_SUBSCRIBERS_PER_SESSION } from "../../sessions/live-session.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { sseResponse } from "../sse-stream.ts";
import { SessionIdParams } from "./session-params.ts";

/** Last-Event-ID is decimal only; anything else means "live only". */
function parseLastEventId(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}

function parseMaxQueued(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MAX_QUEUED;
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= MIN_MAX_QUEUED && n <= MAX_MAX_QUEUED))
    throw new DaemonError(400, "invalid_max_queued", `maxQueued must be an integer from ${MIN_MAX_QUEUED} to ${MAX_MAX_QUEUED}`);
  return n;
}

/** The stream's headers that do not depend on one stream (sse-stream.ts adds its stream id). */
function headHeaders(epoch: string): Record<string, string> {
  return {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
    "X-Svc-Event-Epoch": epoch,
  };
}

export const eventRoutes = (deps: AppDeps) =>
  new Elysia({ name: "routes/events" }).get(
    "/session/:id/events",
    ({ params, query, request }) => {
      const session = deps.sessions.get(params.id);
      const maxQueued = parseMaxQueued(query.maxQueued);
      if (request.method === "HEAD") return new Response(null, { headers: headHeaders(session.bus.epoch) });
      const sub = session.bus.subscribe({
        lastEventId: parseLastEventId(request.headers.get("last-event-id")),
        epoch: request.headers.get("x-svc-event-epoch"),
        maxQueued,
      });
      if (sub === null)
        throw new DaemonError(429, "subscriber_limit_exceeded", "Too many event subscribers on this session", { limit: MAX_SUBSCRIBERS_PER_SESSION }, 5);
      // The stream holds a connection slot, and keeps its client's id alive, until it ends;
      // sseResponse calls onClose exactly once.
      const closed = deps.transport.streamOpened(request);
      const released = session.clients.hold(request.headers.get(CLIENT_ID_HEADER));
      return sseResponse(sub, {
        epoch: session.bus.epoch,
        writerIdleTimeoutMs: deps.config.limits.writerIdleTimeoutMs,
        idleEviction: (idleForMs, timeoutMs) =>
          session.bus.synthetic("client_evicted", { reason: "writer_idle_timeout", errorKind: "writer_idle_timeout", idleForMs, timeoutMs }),
        onClose: () => {
          closed();
          released();
        },
      });
    },
    {
      params: SessionIdParams,
      query: t.Object({ maxQueued: t.Optional(t.String()) }, { additionalProperties: true }),
      detail: capability(["session_events", "slow_client_warning", "typed_event_schema"], { summary: "Server-Sent Events stream of the session" }),
    },
  );
