/**
 * The daemon's lazy seams: every subsystem the daemon process loads on first use, not at boot, is
 * imported here and only here. At boot the daemon holds the front door (config, logging, the
 * security chain, the listener) and answers `GET /health` with nothing else; the rest comes in
 * through these functions. The guard `test/e2e/boot-modules.test.ts` checks, against the binary,
 * what an idle daemon has loaded.
 */

/** The runtimes, sessions, store and HTTP app, with every route (`app-core.ts`). */
export const loadAppCore = () => import("./app-core.ts");

/** The OpenAPI document's generator, for `/openapi.json` and `/docs`. */
export const loadOpenApi = () => import("@elysiajs/openapi/openapi");

/** The event stream's schemas, which the OpenAPI document publishes under `components.schemas`. */
export const loadEventSchemas = () => import("../events/event-schemas.ts");

/** The transcript export's renderer (html, md, json, jsonl), for `/session/:id/export`. */
export const loadExportRenderer = () => import("../sessions/transcript-export.ts");

/** Model providers and device-flow sign-in (`src/auth/`), for `/workspace/auth/*` and each agent start. */
export const loadAuth = () => import("../auth/index.ts");

/** Update checks, staging and restarts (`src/update/`), for `/daemon/update*`. */
export const loadUpdate = () => import("../update/index.ts");

/** Channel webhook intake (`src/channels/`), for `POST /channels/:channelName/webhooks/:source`. */
export const loadChannels = () => import("../channels/index.ts");
