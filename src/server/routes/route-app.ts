/**
 * The app a route module adds its routes to: the root itself (`app.ts`), typed with the names of
 * the API's models (`schemas/api-models.ts`). Each route is added once, where it is served: a
 * route added to a plugin is added again by every app that uses the plugin, which took a third of
 * the core's build before the first answer.
 */
import type { apiModels } from "../schemas/api-models.ts";

export type RouteApp = typeof apiModels;
