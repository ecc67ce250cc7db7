/** `GET /health`: liveness, and with `deep` the live counts (informational only). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { shallowHealth } from "../health-answer.ts";
import { ErrorBody } from "../schemas/error-body.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import type { RouteApp } from "./route-app.ts";

const HealthShallow = t.Object({ status: t.Literal("ok") });
const HealthDeep = t.Object({
  status: t.Literal("ok"),
  workspaceCount: Type.Integer(),
  sessions: Type.Integer(),
  pendingPermissions: Type.Integer(),
  activePrompts: Type.Integer(),
  activeWork: t.Boolean(),
  channelAlive: t.Boolean(),
});
const Degraded = t.Object({ status: t.Literal("degraded"), reason: t.String() });

/** `deep` given as `1`, `true` or bare (`?deep`). */
function wantsDeep(query: Record<string, string | undefined>): boolean {
  const deep = query.deep;
  return deep !== undefined && (deep === "" || deep === "1" || deep.toLowerCase() === "true");
}

export const healthRoutes = (app: RouteApp, deps: AppDeps) =>
  app.get(
    "/health",
    ({ query, status }) => {
      if (!wantsDeep(query)) return shallowHealth();
      try {
        const a = deps.activity();
        return {
          status: "ok" as const,
          workspaceCount: 1,
          sessions: a.sessions,
          pendingPermissions: a.pendingPermissions,
          activePrompts: a.activePrompts,
          activeWork: a.activePrompts > 0,
          channelAlive: a.liveChannels > 0,
        };
      } catch {
        return status(503, { status: "degraded" as const, reason: "aggregation_failed" });
      }
    },
    {
      query: t.Object({ deep: t.Optional(t.String()) }),
      // 503: the deep counts failed, or the front door's connection cap.
      response: { 200: t.Union([HealthShallow, HealthDeep]), ...errorResponses(), 503: t.Union([Degraded, ErrorBody]) },
      detail: capability("health", { summary: "Liveness; `deep` adds live counts" }),
    },
  );
