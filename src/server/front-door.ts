/**
 * The front door: every request passes the security chain here, in the spec's order, before the
 * Elysia app sees it:
 *
 *   self-origin strip → CORS allowlist → Host allowlist (loopback binds) → bearer (loopback /health
 *   exempt unless --require-auth) → rate limit → strict mutation gate → URL sanity → app
 *
 * Body parsing happens inside the app (`json-body.ts`), so it always comes after these gates.
 * The front door also caps concurrent requests, attaches CORS headers to every response for an
 * admitted origin, and writes the one-line access log.
 */
import type { Server } from "bun";
import type { Config } from "../config/config.ts";
import type { Logger } from "../logging/logger.ts";
import { ERROR_HEADERS, jsonResponse } from "./error-response.ts";
import { MAX_JSON_BODY_BYTES, isStreamedUpload } from "./json-body.ts";
import { createBearerCheck } from "./security/bearer.ts";
import { decideCors } from "./security/cors.ts";
import { selfAuthorities, selfOrigins } from "./security/loopback-aliases.ts";
import { rateTierOf, type RateLimiter } from "./security/rate-limiter.ts";
import type { TransportStats } from "./transport-stats.ts";

export type AppFetch = (request: Request) => Response | Promise<Response>;

export interface FrontDoorDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly app: AppFetch;
  /** Constant answers to query-less GETs, served without entering the app (see BuiltApp). */
  readonly constantGets: ReadonlyMap<string, () => Response>;
  /** True for `METHOD path` pairs of strict mutation routes. */
  readonly isStrictRoute: (method: string, path: string) => boolean;
  readonly rateLimiter: RateLimiter | null;
  readonly transport: TransportStats;
  /** The port actually bound (differs from config.port for --port 0). */
  readonly port: number;
}

const UNAUTHORIZED = JSON.stringify({ error: "Unauthorized" });
const UNAUTHORIZED_HEADERS = { "Content-Type": "application/json; charset=utf-8", ...ERROR_HEADERS };
const TOKEN_REQUIRED = {
  error: "This route requires the daemon to be configured with a bearer token. Set SVC_SERVER_TOKEN or pass --token to enable bearer auth.",
  code: "token_required",
};

/** Pathname of a request URL without allocating a URL object (Bun gives a bare target when Host is unusable). */
function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const q = url.indexOf("?", start);
  const h = url.indexOf("#", start);
  const end = q === -1 ? (h === -1 ? url.length : h) : q;
  return url.slice(start, end);
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
  const strip = selfOrigins(config.hostname, deps.port);
  const allowedHosts = config.loopbackBind ? selfAuthorities(config.hostname, deps.port) : null;
  const checkBearer = config.token === null ? null : createBearerCheck(config.token);
  const healthExempt = config.loopbackBind && !config.requireAuth;
  const logRequests = logger.enabled("info");
  const maxActive = config.limits.listenerMaxConnections;
  const slowRequestIdleSeconds = Math.min(255, Math.ceil(Math.max(config.limits.sessionRestoreTimeoutMs, config.limits.initTimeoutMs) / 1000) + 30);

  /**
   * Runs the chain; returns the response (a promise only when the app is asynchronous) and the CORS
   * headers to attach to it. Kept synchronous so constant answers cost no promise at all.
   */
  function pass(request: Request, server: Server<unknown>, method: string, url: string, path: string): [Response | Promise<Response>, Record<string, string> | null] {
    const headers = request.headers;

    // 1. Self-origin strip, 2. CORS allowlist.
    let origin = headers.get("origin");
    if (origin !== null && strip.has(origin.toLowerCase())) origin = null;
    let cors: Record<string, string> | null = null;
    if (origin !== null) {
      const preflight = method === "OPTIONS" && (headers.has("access-control-request-method") || headers.has("access-control-request-headers"));
      const decision = decideCors(origin, preflight, config.origins);
      if (decision.kind === "deny") return [jsonResponse({ error: "Request denied by CORS policy" }, 403, { Vary: "Origin" }), null];
      if (decision.kind === "preflight") return [new Response(null, { status: 204, headers: decision.headers }), null];
      if (decision.kind === "allow") cors = decision.headers;
    }

    // 3. Host allowlist on loopback binds (DNS-rebinding defence).
    if (allowedHosts !== null) {
      const host = headers.get("host");
      if (host === null || !allowedHosts.has(host.toLowerCase())) return [jsonResponse({ error: "Invalid Host header" }, 403), cors];
    } else if (url.startsWith("/")) {
      // A Host that cannot form a URL (empty, or with `/`, `?`, `#`, `@`) leaves a bare request
      // target, which the router reads differently from this chain: refuse it (RFC 9112 §3.2).
      return [jsonResponse({ error: "Invalid Host header" }, 400), cors];
    }

    // 4. Bearer.
    const isHealth = path === "/health" && (method === "GET" || method === "HEAD");
    if (checkBearer !== null && !(isHealth && healthExempt) && !checkBearer(headers.get("authorization")))
      return [new Response(UNAUTHORIZED, { status: 401, headers: UNAUTHORIZED_HEADERS }), cors];

    // 5. Rate limit, keyed by the socket's address.
    if (deps.rateLimiter !== null) {
      const tier = rateTierOf(method, path);
      if (tier !== null) {
        const verdict = deps.rateLimiter.check(server.requestIP(request)?.address ?? "unknown", tier);
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
    if (checkBearer === null && method !== "GET" && deps.isStrictRoute(method, path)) return [jsonResponse(TOKEN_REQUIRED, 401), cors];

    // Constant answers need nothing below (their paths are plain and they read no body).
    if (method === "GET") {
      const constant = deps.constantGets.get(path);
      if (constant !== undefined && !url.includes("?")) return [constant(), cors];
    }

    // URL and body sanity before routing.
    if (path.includes("%")) {
      try {
        decodeURIComponent(path);
      } catch {
        return [jsonResponse({ error: "Malformed URL encoding", code: "invalid_request" }, 400), cors];
      }
    }
    const length = headers.get("content-length");
    if (length !== null && Number(length) > MAX_JSON_BODY_BYTES && !isStreamedUpload(headers.get("content-type")))
      return [jsonResponse({ error: "Request body too large (max 10 MB)" }, 413), cors];

    // Past the gates, a slow answer is legitimate: lift the short idle timeout that guards half-open
    // sockets (it also counts time spent waiting for a handler) for requests that may take long.
    if (path.endsWith("/events")) server.timeout(request, 0);
    else if (method !== "GET" && method !== "HEAD") server.timeout(request, slowRequestIdleSeconds);

    // A plain OPTIONS (no preflight headers) that got this far is answered here.
    if (method === "OPTIONS") return [new Response(null, { status: 204, headers: { Allow: "GET, POST, PATCH, DELETE, OPTIONS" } }), cors];

    return [deps.app(request), cors];
  }

  /** Attaches CORS headers, writes the access-log line and releases the request slot. */
  function finish(response: Response, cors: Record<string, string> | null, method: string, path: string, started: number): Response {
    transport.activeRequests--;
    if (cors !== null) response = withHeaders(response, cors);
    if (logRequests) logger.request(method, path.length > 200 ? `${path.slice(0, 200)}…` : path, response.status, performance.now() - started);
    return response;
  }

  function failed(err: unknown, method: string, path: string, started: number): Response {
    logger.error("request failed outside the app", { method, path, error: String(err) });
    return finish(jsonResponse({ error: "Internal server error" }, 500), null, method, path, started);
  }

  return function frontDoor(request, server) {
    const started = performance.now();
    const method = request.method;
    const url = request.url;
    const path = pathOf(url);
    if (transport.activeRequests >= maxActive) {
      transport.activeRequests++;
      return finish(jsonResponse({ error: "Too many concurrent requests", code: "connection_limit_exceeded", limit: maxActive }, 503, { "Retry-After": "1" }), null, method, path, started);
    }
    transport.activeRequests++;
    let result: [Response | Promise<Response>, Record<string, string> | null];
    try {
      result = pass(request, server, method, url, path);
    } catch (err) {
      return failed(err, method, path, started);
    }
    const [response, cors] = result;
    if (response instanceof Promise)
      return response.then(
        (r) => finish(r, cors, method, path, started),
        (err) => failed(err, method, path, started),
      );
    return finish(response, cors, method, path, started);
  };
}
