/**
 * The front door before its app is built: it answers the query-less `GET /health` (and the boot
 * answers it is given) on its own; every other request waits for the app, is answered by it, and
 * none is lost; a build that fails answers 500 and the next request builds again.
 */
import { afterEach, expect, test } from "bun:test";
import { createFrontDoor, type Routing } from "../../../src/server/front-door.ts";
import { TransportStats } from "../../../src/server/transport-stats.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const cleanups: (() => PromiseLike<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A listener behind a front door whose routing is built by `build`, counted in `builds`. */
function door(build: () => Promise<Routing>, bootGets?: ReadonlyMap<string, () => Response>) {
  const dir: TempDir = tempDir("svc-door-boot-");
  const { config, logger } = testServerConfig(dir.path, []);
  const counts = { builds: 0 };
  let frontDoor: ReturnType<typeof createFrontDoor> | null = null;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request, srv) => frontDoor!(request, srv) });
  frontDoor = createFrontDoor({
    config,
    logger,
    routing: () => (counts.builds++, build()),
    ...(bootGets ? { bootGets } : {}),
    rateLimiter: null,
    transport: new TransportStats(),
    port: server.port!,
    socketIdleTimeoutSeconds: 10,
  });
  cleanups.push(async () => {
    await server.stop(true);
  }, () => dir[Symbol.asyncDispose]());
  return { url: `http://127.0.0.1:${server.port}`, counts };
}

const appRouting = (answer: (request: Request) => Response): Routing => ({
  app: answer,
  constantGets: new Map(),
  isStrictRoute: () => false,
  isPublicGet: () => false,
});

test("GET /health and the boot answers come at once; the rest waits for the app and is answered by it", async () => {
  let release!: (routing: Routing) => void;
  const built = new Promise<Routing>((resolve) => (release = resolve));
  const d = door(() => built, new Map([["/capabilities", () => Response.json({ boot: true })]]));

  expect(await (await fetch(`${d.url}/health`)).json()).toEqual({ status: "ok" });
  expect(await (await fetch(`${d.url}/capabilities`)).json()).toEqual({ boot: true });
  expect(d.counts.builds).toBe(0); // answered without building anything

  const waiting = ["/a", "/b?x=1", "/health?deep=1", "/capabilities?v=1"].map((path) => fetch(d.url + path, { method: path === "/a" ? "POST" : "GET", body: path === "/a" ? "{}" : null }));
  await until(() => d.counts.builds === 1, 5000, "the build to start");
  release(appRouting((request) => new Response(`app ${request.method} ${new URL(request.url).pathname}`)));
  expect(await Promise.all(waiting.map(async (r) => (await r).text()))).toEqual(["app POST /a", "app GET /b", "app GET /health", "app GET /capabilities"]);
  expect(d.counts.builds).toBe(1); // one build for every request that waited
});

test("a build that fails answers 500 and the next request builds again", async () => {
  let attempts = 0;
  const d = door(async () => {
    if (++attempts === 1) throw new Error("first build fails");
    return appRouting(() => new Response("built"));
  });
  const first = await fetch(`${d.url}/x`);
  expect(first.status).toBe(500);
  expect(await (await fetch(`${d.url}/x`)).text()).toBe("built");
  expect(attempts).toBe(2);
});

test("a build that fails for want of descriptors answers 503 resource_exhausted with Retry-After, like the app", async () => {
  let attempts = 0;
  const d = door(async () => {
    if (++attempts === 1) throw Object.assign(new Error("EMFILE: too many open files, open 'svc.db'"), { code: "EMFILE" });
    return appRouting(() => new Response("built"));
  });
  const first = await fetch(`${d.url}/x`);
  expect(first.status).toBe(503);
  expect(first.headers.get("retry-after")).toBe("5");
  expect(await first.json()).toMatchObject({ code: "resource_exhausted" });
  expect(await (await fetch(`${d.url}/x`)).text()).toBe("built");
});
