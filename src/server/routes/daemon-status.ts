/** `GET /daemon/status?detail=summary|full`: in-memory snapshot; never starts an agent child. */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { daemonStatus, type ProcessMemory } from "../daemon-status.ts";

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
  new Elysia({ name: "routes/daemon-status" }).get(
    "/daemon/status",
    ({ query }) => {
      const detail = query.detail ?? "summary";
      if (detail !== "summary" && detail !== "full")
        throw new DaemonError(400, "invalid_detail", "detail must be one of: summary, full");
      return daemonStatus(
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
        detail,
      );
    },
    {
      query: t.Object({ detail: t.Optional(t.String()) }),
      detail: capability("daemon_status", { summary: "Daemon status snapshot with issues roll-up" }),
    },
  );
