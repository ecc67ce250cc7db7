/** `GET /daemon/status?detail=summary|full`: in-memory snapshot; never starts an agent child. */
import { Elysia } from "elysia";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { daemonStatus, type ProcessMemory } from "../daemon-status.ts";
import { apiModels } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { DaemonStatus, DaemonStatusQuery } from "./daemon-status-schemas.ts";

/**
 * The process's memory use, or null when it cannot be read: Bun reads it from /proc, which fails
 * when the process is out of file descriptors; the status route must still answer then. This is
 * the route's only filesystem access.
 */
function readProcessMemory(): ProcessMemory | null {
  try {
    const { rss, heapUsed } = process.memoryUsage();
    return { rssBytes: rss, heapUsedBytes: heapUsed };
  } catch {
    return null;
  }
}

export const daemonStatusRoutes = (deps: AppDeps) =>
  new Elysia({ name: "routes/daemon-status" }).use(apiModels).get(
    "/daemon/status",
    ({ query }) =>
      daemonStatus(
        {
          config: deps.config,
          daemon: deps.daemon,
          activity: deps.activity(),
          activeRequests: deps.transport.activeRequests,
          sseStreams: deps.transport.sseStreams,
          rateLimitRejected: deps.rateLimiter?.rejectedSinceStart() ?? null,
          now: Date.now(),
          memory: readProcessMemory(),
          recording: deps.sessions.store?.degraded ?? null,
        },
        query.detail ?? "summary",
      ),
    {
      query: DaemonStatusQuery,
      response: { 200: DaemonStatus, ...errorResponses() },
      detail: capability("daemon_status", { summary: "Daemon status snapshot with issues roll-up" }),
    },
  );
