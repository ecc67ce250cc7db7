/**
 * `GET /session/:id/events`: the session's SSE stream with Last-Event-ID replay. The router runs
 * this handler for `HEAD` too, which answers the stream's headers (and the GET's 404/400) without
 * subscribing: no replay, no subscriber or connection slot, nothing left open. (So a HEAD cannot
 * tell whether the subscriber limit would refuse a GET.)
 *
 * Its responses are declared in `detail.responses`: the OpenAPI generator gives a `response` schema
 * only a JSON or text/plain body, and the 200 here is `text/event-stream` whose frames are
 * `SseEvent`s. Those are named schemas of the events module, which `/openapi.json` publishes under
 * `components.schemas` (`routes/docs.ts`). They are not Elysia models: no request is checked
 * against them, and as models every route's validator was compiled with all of them as references
 * (and the model module rebuilt), which cost the first session about 8 ms.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { DEFAULT_MAX_QUEUED, MAX_MAX_QUEUED, MIN_MAX_QUEUED } from "../../events/event-bus.ts";
import type { EventData } from "../../events/event-schemas.ts";
import { CLIENT_ID_HEADER } from "../../sessions/client-ids.ts";
import { MAX_SUBSCRIBERS_PER_SESSION } from "../../sessions/live-session.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ERROR_BODY } from "../schemas/api-models.ts";
import { sseResponse } from "../sse-stream.ts";
import { SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

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

const EventsQuery = t.Object(
  {
    maxQueued: t.Optional(
      t.String({
        description: `Live queue bound in frames, an integer from ${MIN_MAX_QUEUED} to ${MAX_MAX_QUEUED} (default ${DEFAULT_MAX_QUEUED}); anything else is 400 \`invalid_max_queued\``,
      }),
    ),
  },
  { additionalProperties: true },
);

const EventsHeaders = t.Object(
  {
    accept: t.Optional(t.String({ description: "`text/event-stream`" })),
    "last-event-id": t.Optional(
      t.String({ description: "Replay after this id (decimal; `0` replays from the oldest retained event); anything else means live only" }),
    ),
    "x-svc-event-epoch": t.Optional(t.String({ description: "The epoch the client last saw; a different one replays the whole ring after `state_resync_required`" })),
    [CLIENT_ID_HEADER]: t.Optional(t.String({ description: "The client's id from `POST /session`; kept alive while the stream is open" })),
  },
  { additionalProperties: true },
);

/** The stream's response headers, as the document declares them. */
const STREAM_HEADERS = {
  "X-Svc-Event-Epoch": { description: "The session's event epoch; send it back as `X-Svc-Event-Epoch` on reconnect", schema: { type: "string" } },
  "X-Svc-SSE-Stream-Id": { description: "This stream's id (absent on HEAD)", schema: { type: "string" } },
  "Cache-Control": { schema: { type: "string", const: "no-cache, no-transform" } },
  "X-Accel-Buffering": { description: "Disables proxy buffering", schema: { type: "string", const: "no" } },
} as const;

/** The daemon's shared error body (`components.schemas.ErrorBody`, see server/schemas/error-body.ts). */
const ERROR_BODY_REF = { $ref: `#/components/schemas/${ERROR_BODY}` };

const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "string" } } } as const;
const json = (description: string, headers?: typeof retryAfter) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: ERROR_BODY_REF } },
});

/** Every status the route answers, with its body (see the header for why in `detail`). */
const EVENTS_RESPONSES = {
  200: {
    description: "The event stream: `retry: 3000`, then frames (`id:`, `event:`, `data:` one-line `SseEvent` JSON) and `: heartbeat` comments. HEAD answers the headers only.",
    headers: STREAM_HEADERS,
    content: { "text/event-stream": { schema: { $ref: "#/components/schemas/SseEvent" } } },
  },
  400: json("`maxQueued` out of range (`invalid_max_queued`), an invalid session id or malformed URL (`invalid_request`), or a bad Host header"),
  401: json("Missing or wrong bearer token"),
  403: json("Refused by the Host or CORS allowlist"),
  404: json("No live session with this id (`session_not_found`; with `restorable: true` it is persisted and `POST /session/:id/load` brings it back)"),
  413: json("A `Content-Length` over the cap (the front door answers before any route)"),
  429: json("The session has its maximum of event subscribers (`subscriber_limit_exceeded`), or the rate limit", retryAfter),
  500: json("Internal failure"),
  503: json("Too many concurrent connections (`connection_limit_exceeded`) or out of descriptors (`resource_exhausted`)", retryAfter),
};

/** The stream's headers that do not depend on one stream (sse-stream.ts adds its stream id). */
function headHeaders(epoch: string): Record<string, string> {
  return {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
    "X-Svc-Event-Epoch": epoch,
  };
}

export const eventRoutes = (app: RouteApp, deps: AppDeps) =>
  app.get(
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
          session.bus.synthetic("client_evicted", {
            reason: "writer_idle_timeout",
            errorKind: "writer_idle_timeout",
            idleForMs,
            timeoutMs,
          } satisfies EventData<"client_evicted">),
        onClose: () => {
          closed();
          released();
        },
      });
    },
    {
      params: SessionIdParams,
      query: EventsQuery,
      headers: EventsHeaders,
      detail: {
        ...capability(["session_events", "slow_client_warning", "typed_event_schema", "mcp_guardrail_events"], { summary: "Server-Sent Events stream of the session" }),
        responses: EVENTS_RESPONSES,
      },
    },
  );
