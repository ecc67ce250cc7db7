/**
 * `GET /daemon/status?detail=summary|full`. `summary` is an in-memory snapshot (memory use comes
 * from the sampler, never read per request); `full` also reads the workspace sections, each with
 * its own timeout (`status-sections.ts`). Neither starts an agent child.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { daemonStatus, type StatusInputs } from "../daemon-status.ts";
import { worstBudget } from "../../runtime/mcp-budget-state.ts";
import { MemorySampler } from "../memory-sampler.ts";
import { apiModelNames } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { collectSections, snapshotSections } from "../status-sections.ts";
import type { SnapshotSource } from "../workspace-snapshots.ts";
import { DaemonStatus, DaemonStatusQuery } from "./daemon-status-schemas.ts";

export const daemonStatusRoutes = (deps: AppDeps, snapshots: readonly SnapshotSource[]) => {
  const memory = new MemorySampler();
  const sections = deps.statusSources?.sections ?? snapshotSections(snapshots);
  const mcpBudget = deps.statusSources?.mcpBudget ?? (() => worstBudget(deps.runtimes.all().map((r) => r.mcpBudget)));

  const inputs = (): StatusInputs => ({
    config: deps.config,
    daemon: deps.daemon,
    activity: deps.activity(),
    workspaces: deps.runtimes.all().map((r) => ({
      workspaceCwd: r.cwd,
      sessions: r.sessionCount,
      channelLive: r.channelLive,
      startInProgress: r.startInProgress,
      startFailure: r.lastStartFailure,
      lastRecycle: r.lastRecycle,
    })),
    activeRequests: deps.transport.activeRequests,
    sseStreams: deps.transport.sseStreams,
    rateLimitRejected: deps.rateLimiter?.rejectedSinceStart() ?? null,
    now: Date.now(),
    memory: memory.current(),
    recording: deps.sessions.store?.degraded ?? null,
    history: deps.sessions.store?.unavailable ?? null,
    mcpBudget: mcpBudget(),
  });

  return new Elysia({ name: "routes/daemon-status" }).use(apiModelNames).get(
    "/daemon/status",
    async ({ query }) => {
      if (query.detail !== "full") return daemonStatus(inputs(), null);
      const read = await collectSections(sections);
      // The snapshot is taken once the sections are in, so its counts are as fresh as they are.
      return daemonStatus(inputs(), { sections: read });
    },
    {
      query: DaemonStatusQuery,
      response: { 200: DaemonStatus, ...errorResponses() },
      detail: capability("daemon_status", { summary: "Daemon status snapshot with issues roll-up" }),
    },
  );
};
