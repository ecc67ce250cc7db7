/**
 * Capability tags live on the routes that implement them (`detail["x-svc-capability"]`), so
 * `/capabilities` lists a tag only when its route is mounted in this build. The same detail block
 * marks strict mutation routes (`x-svc-strict`), read by the front door's strict gate.
 */
import type { Config } from "../config/config.ts";

export interface RouteDetail {
  summary?: string;
  description?: string;
  tags?: string[];
  hide?: boolean;
  "x-svc-capability"?: string[];
  "x-svc-strict"?: boolean;
}

/** The OpenAPI `detail` for a route providing `tags`. */
export function capability(tags: string | string[], detail: Omit<RouteDetail, "x-svc-capability"> = {}): RouteDetail {
  return { ...detail, "x-svc-capability": Array.isArray(tags) ? tags : [tags] };
}

interface RouteLike {
  hooks?: { detail?: RouteDetail };
}

/** Tags advertised by mounted routes. */
export function routeCapabilities(routes: readonly RouteLike[]): Set<string> {
  const out = new Set<string>();
  for (const route of routes) for (const tag of route.hooks?.detail?.["x-svc-capability"] ?? []) out.add(tag);
  return out;
}

/** The `features` list: route tags plus conditional tags whose toggle is on (and whose route works). */
export function featureTags(routeTags: ReadonlySet<string>, config: Config): string[] {
  const tags = new Set(routeTags);
  if (config.requireAuth) tags.add("require_auth");
  if (config.origins.any || config.origins.origins.size > 0) tags.add("allow_origin");
  if (config.rateLimit.enabled) tags.add("rate_limit");
  // The workspace's agent serves its MCP servers to all of its sessions (per-entry accounting in
  // `/workspace/mcp`, `?entryIndex` on a restart); `SVC_SERVE_NO_MCP_POOL=1` withdraws both tags.
  if (config.mcp.pool && routeTags.has("workspace_mcp_restart")) {
    tags.add("mcp_workspace_pool");
    tags.add("mcp_pool_restart");
  }
  if (config.limits.promptDeadlineMs !== null && routeTags.has("session_prompt")) tags.add("prompt_absolute_deadline");
  if (config.limits.writerIdleTimeoutMs !== null && routeTags.has("session_events")) tags.add("writer_idle_timeout");
  return [...tags].sort();
}
