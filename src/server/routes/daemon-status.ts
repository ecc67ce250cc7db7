/** `GET /daemon/status?detail=summary|full`: in-memory snapshot; never starts an agent child. */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { daemonStatus } from "../daemon-status.ts";

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
        },
        detail,
      );
    },
    {
      query: t.Object({ detail: t.Optional(t.String()) }),
      detail: capability("daemon_status", { summary: "Daemon status snapshot with issues roll-up" }),
    },
  );
