/**
 * The core's build adds each route once, to the root (`routes/route-app.ts`). A route added to a
 * plugin is added again by every app that uses it, which the first session pays for (the build
 * comes before its answer); only the file and git routes keep a plugin of their own, for their
 * local response hook, and so are added twice. And the event schemas are not models: as models,
 * every body validator was compiled with all of them as references (`routes/events.ts`).
 */
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { Elysia } from "elysia";
import type { Logger } from "../../../src/logging/logger.ts";
import { API_MODELS } from "../../../src/server/schemas/api-models.ts";
import { createApp, type BuiltApp } from "../../../src/server/app.ts";
import type { RuntimeRegistry } from "../../../src/sessions/runtime-registry.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";

interface RouteLike {
  readonly path: string;
  readonly hooks: { mapResponse?: unknown[] };
}

let dir: TempDir;
let built: BuiltApp;
let runtimes: RuntimeRegistry;
let adds = 0;

beforeAll(() => {
  dir = tempDir("svc-route-registration-");
  const { config, logger } = testServerConfig(dir.path, []);
  const deps = testAppDeps(config, logger as Logger);
  runtimes = deps.runtimes;
  const add = spyOn(Elysia.prototype as unknown as { add: (...args: unknown[]) => unknown }, "add");
  try {
    built = createApp(deps);
    adds = add.mock.calls.length;
  } finally {
    add.mockRestore();
  }
});

afterAll(async () => {
  await runtimes.stop();
  await dir[Symbol.asyncDispose]();
});

test("every route is added once, to the root; those of a plugin with a local hook twice", () => {
  const routes = built.app.routes as unknown as RouteLike[];
  const inLocalPlugin = routes.filter((r) => (r.hooks.mapResponse?.length ?? 0) > 0);
  // The two plugins with a local hook: the file and git routes of every workspace form.
  expect(inLocalPlugin.length).toBeGreaterThan(0);
  expect(inLocalPlugin.filter((r) => !/\/(file|stat|list|glob|git)(\/|$)/.test(r.path))).toEqual([]);
  expect(adds).toBe(routes.length + inLocalPlugin.length);
});

test("the root's models are the API's named schemas only, not the event stream's", () => {
  const models = Object.keys((built.app as unknown as { definitions: { type: Record<string, unknown> } }).definitions.type);
  expect(models.sort()).toEqual(Object.keys(API_MODELS).sort());
});
