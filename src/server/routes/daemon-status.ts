/**
 * `GET /daemon/status?detail=summary|full`. `summary` is an in-memory snapshot (memory use comes
 * from the sampler, never read per request); `full` also reads the workspace sections, each with
 * its own timeout (`status-sections.ts`). Neither starts an agent child.
 */
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { daemonStatus, type RuntimeStatus, type StatusInputs } from "../daemon-status.ts";
import type { WorkspaceRuntime } from "../../runtime/workspace-runtime.ts";
import { worstBudget } from "../../runtime/mcp-budget-state.ts";
import { MemorySampler } from "../memory-sampler.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { collectSections, snapshotSections } from "../status-sections.ts";
import type { SnapshotSource } from "../workspace-snapshots.ts";
import { DaemonStatus, DaemonStatusQuery } from "./daemon-status-schemas.ts";
import type { RouteApp } from "./route-app.ts";

export const daemonStatusRoutes = (app: RouteApp, deps: AppDeps, snapshots: readonly SnapshotSource[]) => {
  const memory = new MemorySampler();
  // The hooks listing stays out of the full status: it is settings, not the workspace's health.
  const sections = deps.statusSources?.sections ?? snapshotSections(snapshots.filter((s) => s.name !== "hooks"));
  const mcpBudget = deps.statusSources?.mcpBudget ?? (() => worstBudget(deps.runtimes.all().map((r) => r.mcpBudget)));

  const inputs = (): StatusInputs => ({
    config: deps.config,
    daemon: deps.daemon,
    activity: deps.activity(),
    workspaces: deps.runtimes.scopes().map(({ runtime: r, id, primary, draining }) => ({
      workspaceId: id,
      workspaceCwd: r.cwd,
      primary,
      state: draining ? "stopping" : r.startInProgress ? "starting" : r.channelLive ? "live" : "cold",
      childPid: r.pid,
      sessions: r.sessionCount,
      channelLive: r.channelLive,
      startInProgress: r.startInProgress,
      startFailure: r.lastStartFailure,
      lastRecycle: r.lastRecycle,
      lastError: lastError(r),
    })),
    activeRequests: deps.transport.activeRequests,
    sseStreams: deps.transport.sseStreams,
    rateLimitRejected: deps.rateLimiter?.rejectedSinceStart() ?? null,
    now: Date.now(),
    memory: memory.current(),
    recording: deps.sessions.store?.degraded ?? null,
    history: deps.sessions.store?.unavailable ?? null,
    mcpBudget: mcpBudget(),
    checkpoints: deps.sessions.checkpoints?.status() ?? null,
  });

  return app.get(
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

/** A runtime's latest trouble: its failed start (while no start succeeded since) or its last recycle, whichever came last. */
function lastError(r: WorkspaceRuntime): RuntimeStatus["lastError"] {
  const failure = r.lastStartFailure;
  const recycle = r.lastRecycle;
  const failed = failure === null ? null : { code: failure.code, message: failure.error, at: failure.at };
  const recycled = recycle === null ? null : { code: "agent_unresponsive", message: recycle.message, at: new Date(recycle.at).toISOString() };
  if (failed === null || recycled === null) return failed ?? recycled;
  return failed.at >= recycled.at ? failed : recycled;
}
