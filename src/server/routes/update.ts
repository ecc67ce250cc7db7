/**
 * Self-update (`src/update/`, loaded on first use), all token-gated (strict; the GET too, since it
 * makes the daemon reach out to the release location):
 *
 *   GET  /daemon/update            → current and newest version, the staged update, the last restart
 *   POST /daemon/update/prepare    → download, verify and stage the newest release; the status
 *                                    (an older one than the running build with `allowDowngrade` only)
 *   POST /daemon/update/restart    → swap the binary and hand the port to the new daemon (200), or
 *                                    roll back (500 `update_restart_failed`, the old daemon serving)
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import type { Updater } from "../../update/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { loadUpdate } from "../lazy-seams.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { PrepareBody, RestartAnswer, UpdateStatus } from "./update-schemas.ts";
import type { RouteApp } from "./route-app.ts";

const TAG = "daemon_update";

export const updateRoutes = (app: RouteApp, deps: AppDeps) => {
  let updater: Promise<Updater> | null = null;
  const update = () => {
    // The strict gate judges mutations; this GET is gated here.
    if (deps.config.token === null) {
      throw new DaemonError(401, "token_required", "This route requires the daemon to be configured with a bearer token. Set SVC_SERVER_TOKEN or pass --token to enable bearer auth.");
    }
    return (updater ??= loadUpdate().then((m) =>
      m.createUpdater({ dataDir: deps.config.dataDir, releaseUrl: deps.config.releaseUrl, currentVersion: deps.config.version, host: deps.restartHost ?? null }),
    ));
  };
  return app
    .get("/daemon/update", async () => (await update()).status(), {
      response: { 200: UpdateStatus, ...errorResponses() },
      detail: capability(TAG, { summary: "The running version, the newest release (checked against its signature), the staged update and the last restart", "x-svc-strict": true }),
    })
    .post("/daemon/update/prepare", async ({ body }) => (await update()).prepare({ allowDowngrade: body?.allowDowngrade === true }), {
      body: PrepareBody,
      response: { 200: UpdateStatus, ...errorResponses({ also: [409, 501, 502] }) },
      detail: capability(TAG, { summary: "Download the newest release, verify its signature and checksum, and stage it under the data dir", "x-svc-strict": true }),
    })
    .post("/daemon/update/restart", async () => (await update()).restart(), {
      response: { 200: RestartAnswer, ...errorResponses({ also: [409, 501, 502] }) },
      detail: capability(TAG, { summary: "Swap in the staged binary and restart on the same port; a build that does not come up is rolled back", "x-svc-strict": true }),
    });
};
