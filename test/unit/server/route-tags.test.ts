/**
 * The front door answers `/capabilities` before the app is built, from `ROUTE_TAGS`: they must be
 * the tags of the routes the assembled app mounts (with and without the web UI), or the answer
 * would change once the app is built.
 */
import { expect, test } from "bun:test";
import type { Logger } from "../../../src/logging/logger.ts";
import { createApp } from "../../../src/server/app.ts";
import { routeCapabilities, type RouteDetail } from "../../../src/server/capability.ts";
import { ROUTE_TAGS } from "../../../src/server/route-tags.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

for (const web of [true, false])
  test(`ROUTE_TAGS are the tags of the assembled app's routes (web UI ${web ? "on" : "off"})`, async () => {
    await using dir = tempDir("svc-route-tags-");
    const { config, logger } = testServerConfig(dir.path, web ? [] : ["--no-web"]);
    const deps = testAppDeps(config, logger as Logger);
    try {
      const routes = createApp(deps).app.routes as unknown as { hooks?: { detail?: RouteDetail } }[];
      expect([...ROUTE_TAGS].sort()).toEqual([...routeCapabilities(routes)].sort());
    } finally {
      await deps.runtimes.stop();
    }
  });
