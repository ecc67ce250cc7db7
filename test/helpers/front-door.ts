/**
 * The real front door (security chain) around a small test app, served on 127.0.0.1 port 0, for
 * rules the mounted routes cannot show: a strict mutation route, a POST route that parses a JSON
 * body, a route that throws. It also runs the chain under a configuration the test machine should
 * not bind for real (e.g. `--hostname 0.0.0.0`): the config says non-loopback, the socket stays on
 * loopback. The test app uses the daemon's own body parser and error mapper; it does not depend on
 * the daemon's other services, so it stays valid as they grow.
 *
 * Routes:
 *   GET  /health        → `{status: "ok"}`; stands in for the real route, since the loopback
 *                         exemption is decided by the front door on the path alone
 *   GET  /test/ok       → `{ok: true}`
 *   POST /test/echo     → `{received: <parsed body>}`
 *   POST /test/strict   → `{ok: true}`, marked `x-svc-strict` like a strict mutation route
 *   GET  /test/throw    → throws an Error whose message holds the workspace path
 *   GET  /test/slow?ms= → `{ok: true}` after `ms` milliseconds (a slow handler)
 *   GET  /test/stream?ms= → a stream (counted like an event stream) of one chunk, ended `ms`
 *                         milliseconds later
 *   anything else       → the daemon's JSON 404
 *
 * Options: `idleTimeoutSeconds` (the listener's socket idle timeout, default 10), `bodyIdleMs` (how
 * long the body reader waits for more bytes) and `bodyMinTotalMs` (how long any body may take in
 * all), both default the daemon's, to show timeouts quickly.
 */
import { Elysia } from "elysia";
import { Memoirist } from "memoirist";
import type { Logger } from "../../src/logging/logger.ts";
import type { RouteDetail } from "../../src/server/capability.ts";
import { errorResponse } from "../../src/server/error-response.ts";
import { createFrontDoor } from "../../src/server/front-door.ts";
import { JSON_BODY_LIMITS, readJsonBody, type JsonBodyLimits } from "../../src/server/json-body.ts";
import { RateLimiter } from "../../src/server/security/rate-limiter.ts";
import { TransportStats } from "../../src/server/transport-stats.ts";
import { testServerConfig, type TestServer } from "./daemon.ts";
import { tempDir } from "./temp-dir.ts";

export type TestFrontDoor = TestServer;

const STRICT: RouteDetail = { "x-svc-strict": true };

function testApp(logger: Logger, workspace: string, bodyLimits: JsonBodyLimits, transport: TransportStats) {
  return new Elysia({ name: "test-app", strictPath: true, handler: { standardHostname: false } })
    .onParse(({ request }) => readJsonBody(request, bodyLimits))
    .onError(({ code, error }) => errorResponse(code, error, logger))
    .get("/health", () => ({ status: "ok" }))
    .get("/test/ok", () => ({ ok: true }))
    .post("/test/echo", ({ body }) => ({ received: body }))
    .post("/test/strict", () => ({ ok: true }), { detail: STRICT })
    .get("/test/throw", () => {
      throw new Error(`failed reading ${workspace}/node_modules/x.js`);
    })
    .get("/test/slow", async ({ query }) => {
      await Bun.sleep(Number(query.ms));
      return { ok: true };
    })
    .get("/test/stream", ({ query, request }) => {
      const closed = transport.streamOpened(request);
      let timer: Timer | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: open\n\n"));
          timer = setTimeout(() => {
            controller.close();
            closed();
          }, Number(query.ms));
        },
        cancel() {
          clearTimeout(timer);
          closed();
        },
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });
}

export interface FrontDoorOptions {
  env?: Record<string, string | undefined>;
  idleTimeoutSeconds?: number;
  bodyIdleMs?: number;
  /** How long any body may take in all (the daemon's `minTotalMs` by default). */
  bodyMinTotalMs?: number;
}

export async function startFrontDoor(args: string[] = [], options: FrontDoorOptions = {}): Promise<TestFrontDoor> {
  const dir = tempDir("svc-fd-");
  const { config, logger, logs } = testServerConfig(dir.path, args, options.env);
  const transport = new TransportStats();
  const rateLimiter = config.rateLimit.enabled ? new RateLimiter(config.rateLimit) : null;
  const app = testApp(logger, dir.path, {
    ...JSON_BODY_LIMITS,
    idleMs: options.bodyIdleMs ?? JSON_BODY_LIMITS.idleMs,
    minTotalMs: options.bodyMinTotalMs ?? JSON_BODY_LIMITS.minTotalMs,
  }, transport);
  const idleTimeoutSeconds = options.idleTimeoutSeconds ?? 10;
  const strict = new Memoirist<true>();
  for (const route of app.routes as unknown as { method: string; path: string; hooks?: { detail?: RouteDetail } }[])
    if (route.hooks?.detail?.["x-svc-strict"]) strict.add(route.method, route.path, true);

  let frontDoor: ReturnType<typeof createFrontDoor> | null = null;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    reusePort: false,
    idleTimeout: idleTimeoutSeconds,
    maxRequestBodySize: 64 * 1024 * 1024,
    development: false,
    fetch: (request, srv) => frontDoor!(request, srv),
  });
  const port = server.port!;
  frontDoor = createFrontDoor({
    config,
    logger,
    routing: {
      app: app.fetch,
      constantGets: new Map(),
      isStrictRoute: (method, path) => strict.find(method, path) !== null,
      isPublicGet: () => false,
    },
    rateLimiter,
    transport,
    port,
    socketIdleTimeoutSeconds: idleTimeoutSeconds,
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    config,
    url,
    port,
    workspace: dir.path,
    logs,
    fetch: (path, init) => fetch(url + path, init),
    async [Symbol.asyncDispose]() {
      await server.stop(true);
      await dir[Symbol.asyncDispose]();
    },
  };
}
