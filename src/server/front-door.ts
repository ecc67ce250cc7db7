/**
 * The front door: every request passes the security chain here, in the spec's order, before the
 * Elysia app sees it:
 *
 *   connection cap → self-origin strip → CORS allowlist → Host allowlist (loopback binds) → bearer
 *   (loopback /health exempt unless --require-auth; the channel webhook route is judged by its own
 *   secret instead, `security/webhook-auth.ts`) → rate limit → strict mutation gate → URL and
 *   size sanity → app
 *
 * Every gate judges the same path the router matches (`pathOf`, and app.ts configures the router
 * to read it the same way and to match it exactly), so no spelling reaches a handler past a gate
 * meant for it. Body parsing happens inside the app (`json-body.ts`), so it always comes after
 * these gates. The front door also owns the socket's idle timer while a request is in the app,
 * attaches CORS headers to every response for an admitted origin, and writes the one-line access log.
 */
import type { Server } from "bun";
import type { Config } from "../config/config.ts";
import type { Logger } from "../logging/logger.ts";
import { ERROR_HEADERS, exhaustedResponse, jsonResponse } from "./error-response.ts";
import { shallowHealth } from "./health-answer.ts";
import { MAX_JSON_BODY_BYTES } from "./json-body.ts";
import { createBearerCheck } from "./security/bearer.ts";
import { decideCors } from "./security/cors.ts";
import { selfAuthorities, selfOrigins } from "./security/loopback-aliases.ts";
import { rateClientKey, rateTierOf, type RateLimiter } from "./security/rate-limiter.ts";
import type { WebhookGate } from "./security/webhook-auth.ts";
import type { TransportStats } from "./transport-stats.ts";

export type AppFetch = (request: Request) => Response | Promise<Response>;

/** What the front door needs from the app behind it (see BuiltApp). */
export interface Routing {
  readonly app: AppFetch;
  /** Constant answers to query-less GETs, served without entering the app. */
  readonly constantGets: ReadonlyMap<string, () => Response>;
  /** True for `METHOD path` pairs of strict mutation routes. */
  readonly isStrictRoute: (method: string, path: string) => boolean;
  /** GET/HEAD paths that need no bearer (the web UI's static files). */
  readonly isPublicGet: (path: string) => boolean;
  /** Judges channel webhook requests in the bearer's place (absent: there is no webhook route). */
  readonly webhookGate?: WebhookGate;
}

export interface FrontDoorDeps {
  readonly config: Config;
  readonly logger: Logger;
  /**
   * The app behind the door, or how to build it. A routing to build is built on the first request
   * that needs it, which waits for it like every request that comes meanwhile; until then the door
   * answers the query-less `GET /health` alone, exactly as the app would (`BOOT_ROUTING`).
   */
  readonly routing: Routing | (() => Promise<Routing>);
  /** More constant answers to query-less GETs the door serves before the app is built; each must be the app's own. */
  readonly bootGets?: ReadonlyMap<string, () => Response>;
  /** True when the boot answer of `path` (one of `bootGets`) cannot be sure to be the app's: the door builds the app to answer it. */
  readonly bootDefers?: (path: string) => boolean;
  readonly rateLimiter: RateLimiter | null;
  readonly transport: TransportStats;
  /** The port actually bound (differs from config.port for --port 0). */
  readonly port: number;
  /** The listener's `idleTimeout`, restored on a socket once the app has answered its request. */
  readonly socketIdleTimeoutSeconds: number;
}

const UNAUTHORIZED = JSON.stringify({ error: "Unauthorized" });
const UNAUTHORIZED_HEADERS = { "Content-Type": "application/json; charset=utf-8", ...ERROR_HEADERS };
const TOKEN_REQUIRED = {
  error: "This route requires the daemon to be configured with a bearer token. Set SVC_SERVER_TOKEN or pass --token to enable bearer auth.",
  code: "token_required",
};

/**
 * The path of a request URL exactly as the router reads it (app.ts): from the first `/` after the
 * scheme's `//` to the first `?`. Bun has already resolved dot segments and backslashes; nothing is
 * decoded or trimmed, so a spelling the router does not match is judged as the unknown path it is.
 * (Bun gives a bare target when Host is unusable; the Host checks refuse those.)
 */
export function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const q = url.indexOf("?", start + 1);
  return q === -1 ? url.slice(start) : url.slice(start, q);
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const name in headers) response.headers.set(name, headers[name]!);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const name in headers) copy.headers.set(name, headers[name]!);
    return copy;
  }
}

export type FrontDoor = (request: Request, server: Server<unknown>) => Response | Promise<Response>;

export function createFrontDoor(deps: FrontDoorDeps): FrontDoor {
  const { config, logger, transport } = deps;
  /**
   * What the door knows before the app is built: the shallow `/health` and the `bootGets` (the
   * app's own constant answers), no strict route (the strict gate judges mutations only, and those
   * wait for the app) and no public path (the web UI's paths are none of these).
   */
  const bootRouting: Routing = {
    app: () => {
      throw new Error("the app is not built yet");
    },
    constantGets: new Map([["/health", shallowHealth], ...(deps.bootGets ?? [])]),
    isStrictRoute: () => false,
    isPublicGet: () => false,
  };
  let routing: Routing = typeof deps.routing === "function" ? bootRouting : deps.routing;
  let building: Promise<Routing> | null = null;
  /** The built routing; a build that failed is tried again by the next request. */
  const built = (build: () => Promise<Routing>) =>
    (building ??= build().then(
      (r) => (routing = r),
      (err: unknown) => {
        building = null;
        throw err;
      },
    ));
  const strip = selfOrigins(config.hostname, deps.port);
  const allowedHosts = config.loopbackBind ? selfAuthorities(config.hostname, deps.port) : null;
  const checkBearer = config.token === null ? null : createBearerCheck(config.token);
  const healthExempt = config.loopbackBind && !config.requireAuth;
  const logRequests = logger.enabled("info");
  const maxConnections = config.limits.listenerMaxConnections;

  /**
   * 1. Self-origin strip, 2. CORS allowlist: the door's answer to a denied origin or a preflight
   * (or null), and the CORS headers every other answer to this request carries (or null). Also run
   * for a request refused at the connection cap, so that a browser can read that 503.
   */
  function corsGate(headers: Headers, method: string): [Response | null, Record<string, string> | null] {
    let origin = headers.get("origin");
    if (origin !== null && strip.has(origin.toLowerCase())) origin = null;
    if (origin === null) return [null, null];
    const preflight = method === "OPTIONS" && (headers.has("access-control-request-method") || headers.has("access-control-request-headers"));
    const decision = decideCors(origin, preflight, config.origins);
    if (decision.kind === "deny") return [jsonResponse({ error: "Request denied by CORS policy" }, 403, { Vary: "Origin" }), null];
    if (decision.kind === "preflight") return [new Response(null, { status: 204, headers: decision.headers }), null];
    return [null, decision.kind === "allow" ? decision.headers : null];
  }

  /**
   * Runs the chain up to the app. Returns the front door's own answer, or null when the request is
   * admitted to the app, and the CORS headers to attach either way. Synchronous, so constant answers
   * cost no promise at all.
   */
  function gate(request: Request, server: Server<unknown>, method: string, url: string, path: string): [Response | null, Record<string, string> | null] {
    const headers = request.headers;
    const [refusal, cors] = corsGate(headers, method);
    if (refusal !== null) return [refusal, null];

    // 3. Host allowlist on loopback binds (DNS-rebinding defence).
    if (allowedHosts !== null) {
      const host = headers.get("host");
      if (host === null || !allowedHosts.has(host.toLowerCase())) return [jsonResponse({ error: "Invalid Host header" }, 403), cors];
    } else if (url.startsWith("/")) {
      // A Host that cannot form a URL (empty, or with `/`, `?`, `#`, `@`) leaves a bare request
      // target, which the router reads differently from this chain: refuse it (RFC 9112 §3.2).
      return [jsonResponse({ error: "Invalid Host header" }, 400), cors];
    }

    // 4. Bearer, or for a channel webhook its source's secret (a sender has no bearer to give).
    const webhook = routing.webhookGate?.(method, path, headers, () => rateClientKey(server.requestIP(request)?.address)) ?? null;
    if (webhook instanceof Response) return [webhook, cors];
    const isRead = method === "GET" || method === "HEAD";
    const exempt = webhook === "admit" || (isRead && ((path === "/health" && healthExempt) || routing.isPublicGet(path)));
    if (checkBearer !== null && !exempt && !checkBearer(headers.get("authorization")))
      return [new Response(UNAUTHORIZED, { status: 401, headers: UNAUTHORIZED_HEADERS }), cors];

    // 5. Rate limit, keyed by the socket's address (all loopback addresses are one client).
    if (deps.rateLimiter !== null) {
      const tier = rateTierOf(method, path);
      if (tier !== null) {
        const verdict = deps.rateLimiter.check(rateClientKey(server.requestIP(request)?.address), tier);
        if (!verdict.allowed) {
          const retryAfter = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
          return [
            jsonResponse({ error: "Rate limit exceeded", code: "rate_limit_exceeded", tier, retryAfterMs: verdict.retryAfterMs }, 429, {
              "Retry-After": String(retryAfter),
              "X-RateLimit-Limit": String(verdict.limit),
              "X-RateLimit-Remaining": "0",
              "X-RateLimit-Reset": String(verdict.resetAt),
            }),
            cors,
          ];
        }
      }
    }

    // 6. Strict mutation gate: such routes need a configured token (which step 4 then enforced).
    if (checkBearer === null && method !== "GET" && routing.isStrictRoute(method, path)) return [jsonResponse(TOKEN_REQUIRED, 401), cors];

    // Constant answers need nothing below (their paths are plain and they read no body). Bun sends
    // a HEAD answer's headers only.
    if (method === "GET" || method === "HEAD") {
      const constant = routing.constantGets.get(path);
      if (constant !== undefined && !url.includes("?")) return [constant(), cors];
    }

    // URL and body sanity before routing. The size cap holds for every body, whatever its type.
    if (path.includes("%")) {
      try {
        decodeURIComponent(path);
      } catch {
        return [jsonResponse({ error: "Malformed URL encoding", code: "invalid_request" }, 400), cors];
      }
    }
    const length = headers.get("content-length");
    if (length !== null && Number(length) > MAX_JSON_BODY_BYTES) return [jsonResponse({ error: "Request body too large (max 10 MB)" }, 413), cors];

    // A plain OPTIONS (no preflight headers) that got this far is answered here.
    if (method === "OPTIONS") return [new Response(null, { status: 204, headers: { Allow: "GET, POST, PATCH, DELETE, OPTIONS" } }), cors];

    return [null, cors];
  }

  /** Attaches CORS headers, writes the access-log line and releases the request's connection slot. */
  function finish(response: Response, cors: Record<string, string> | null, method: string, path: string, started: number): Response {
    transport.activeRequests--;
    if (cors !== null) response = withHeaders(response, cors);
    if (logRequests) logger.request(method, path.length > 200 ? `${path.slice(0, 200)}…` : path, response.status, performance.now() - started);
    return response;
  }

  function failed(err: unknown, cors: Record<string, string> | null, method: string, path: string, started: number): Response {
    // Building the app on a first request opens files (the store, modules): out of descriptors is the same retryable 503 the app gives.
    const exhausted = exhaustedResponse(err, logger);
    if (exhausted !== null) return finish(exhausted, cors, method, path, started);
    logger.error("request failed outside the app", { method, path, error: String(err) });
    return finish(jsonResponse({ error: "Internal server error" }, 500), cors, method, path, started);
  }

  /**
   * The app has answered: the socket's idle timer guards it again, now, or, when the answer is a
   * stream still open, once the stream ends (until then the stream's own heartbeats and eviction
   * rules govern it).
   */
  function rearmIdleTimer(request: Request, server: Server<unknown>): void {
    const rearm = () => server.timeout(request, deps.socketIdleTimeoutSeconds);
    if (!transport.whenStreamEnds(request, rearm)) rearm();
  }

  function frontDoor(request: Request, server: Server<unknown>): Response | Promise<Response> {
    if (routing === bootRouting && typeof deps.routing === "function" && !answeredAtBoot(request)) {
      const started = performance.now();
      return built(deps.routing).then(
        () => frontDoor(request, server),
        (err: unknown) => {
          transport.activeRequests++;
          const [refusal, cors] = corsGate(request.headers, request.method);
          return refusal !== null ? finish(refusal, null, request.method, pathOf(request.url), started) : failed(err, cors, request.method, pathOf(request.url), started);
        },
      );
    }
    return enter(request, server);
  }

  function enter(request: Request, server: Server<unknown>): Response | Promise<Response> {
    const started = performance.now();
    const method = request.method;
    const url = request.url;
    const path = pathOf(url);
    if (transport.connections >= maxConnections) {
      transport.activeRequests++;
      // A preflight or a denied origin is answered as ever (no work behind it); an admitted origin can read the 503.
      const [refusal, cors] = corsGate(request.headers, method);
      return finish(refusal ?? jsonResponse({ error: "Too many concurrent requests", code: "connection_limit_exceeded", limit: maxConnections }, 503, { "Retry-After": "1" }), cors, method, path, started);
    }
    transport.activeRequests++;
    let response: Response | Promise<Response>;
    let cors: Record<string, string> | null = null;
    try {
      const [answer, corsHeaders] = gate(request, server, method, url, path);
      if (answer !== null) return finish(answer, corsHeaders, method, path, started);
      cors = corsHeaders;
      // Past the gates, time in the app is the handler's (a long glob, an agent round trip): the
      // idle timer, which guards half-open sockets and would also count that time, is off until the
      // app answers. Waiting for a request body is bounded by the body reader (json-body.ts).
      server.timeout(request, 0);
      response = routing.app(request);
    } catch (err) {
      rearmIdleTimer(request, server);
      return failed(err, cors, method, path, started);
    }
    if (response instanceof Promise)
      return response.then(
        (r) => {
          rearmIdleTimer(request, server);
          return finish(r, cors, method, path, started);
        },
        (err) => {
          rearmIdleTimer(request, server);
          return failed(err, cors, method, path, started);
        },
      );
    rearmIdleTimer(request, server);
    return finish(response, cors, method, path, started);
  }

  /** A query-less `GET`/`HEAD` of a constant answer the door is sure of: the requests it answers before the app is built. */
  function answeredAtBoot(request: Request): boolean {
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const url = request.url;
    if (url.includes("?")) return false;
    const path = pathOf(url);
    return bootRouting.constantGets.has(path) && !(deps.bootDefers?.(path) ?? false);
  }

  return frontDoor;
}
