/**
 * The `/daemon/status` snapshot (pure): daemon identity, security posture, limits, live runtime
 * counts, and the issues (`status-issues.ts`) rolled up into one overall status. `summary` is built
 * from in-memory state only; `full` adds the workspace sections it was given (`status-sections.ts`)
 * and the issues they raise. It never carries tokens, client ids, allow-origin patterns or
 * connection ids. What has to be read from the system (memory use) arrives as an input that may be
 * missing; the snapshot then says so, it never fails.
 */
import type { CheckpointStatus } from "../checkpoints/index.ts";
import type { Config } from "../config/config.ts";
import type { HistoryUnavailable, RecordingDegraded } from "../store/store.ts";
import type { ActivitySnapshot, DaemonIdentity } from "./app-deps.ts";
import type { McpBudgetState } from "../runtime/mcp-budget-state.ts";
import type { ProcessMemory } from "./memory-sampler.ts";
import type { RateTier } from "./security/rate-limiter.ts";
import { rollUp, sectionIssues, statusIssues, type WorkspaceRuntimeState } from "./status-issues.ts";
import type { SectionReport } from "./status-sections.ts";

/** One workspace's runtime as the snapshot lists it (`runtime.workspaces`). */
export interface RuntimeStatus {
  readonly workspaceId: string;
  readonly workspaceCwd: string;
  readonly primary: boolean;
  /** `cold` (no child), `starting`, `live`, `stopping` (being removed or stopped). */
  readonly state: "cold" | "starting" | "live" | "stopping";
  readonly childPid: number | null;
  readonly sessions: number;
  /** Its last start failure or recycle, newest first; null when neither happened. */
  readonly lastError: { readonly code: string; readonly message: string; readonly at: string } | null;
}

export interface StatusInputs {
  readonly config: Config;
  readonly daemon: DaemonIdentity;
  readonly activity: ActivitySnapshot;
  /** Every workspace's runtime, the primary first (what the issues are judged on). */
  readonly workspaces: readonly (WorkspaceRuntimeState & Omit<RuntimeStatus, "workspaceCwd" | "sessions">)[];
  readonly activeRequests: number;
  readonly sseStreams: number;
  /** Null when rate limiting is off. */
  readonly rateLimitRejected: Readonly<Record<RateTier, number>> | null;
  readonly now: number;
  /** The last sample; null when it could not be read. */
  readonly memory: ProcessMemory | null;
  /** Null while session recording works (or the daemon has no store). */
  readonly recording?: RecordingDegraded | null;
  /** Null while session history can be read (or the daemon has no store). */
  readonly history?: HistoryUnavailable | null;
  /** Null: the daemon knows nothing of an MCP budget. */
  readonly mcpBudget: McpBudgetState | null;
  /** The rewind snapshots' storage; null when the daemon keeps none. */
  readonly checkpoints?: CheckpointStatus | null;
}

/** What `full` adds: the workspace sections as read for this request. */
export interface FullInputs {
  readonly sections: Readonly<Record<string, SectionReport>>;
}

/** The snapshot: `summary` when `full` is null. */
export function daemonStatus(s: StatusInputs, full: FullInputs | null) {
  const { config, daemon, activity } = s;
  const issues = statusIssues({
    limits: config.limits,
    workspaces: s.workspaces,
    sessions: activity.sessions,
    pendingPermissions: activity.pendingPermissions,
    connections: s.activeRequests + s.sseStreams,
    rateLimitRejected: s.rateLimitRejected,
    mcpBudget: s.mcpBudget,
    recording: s.recording ?? null,
    history: s.history ?? null,
    memoryReadable: s.memory !== null,
    now: s.now,
  });
  if (full) issues.push(...sectionIssues(full.sections));
  return {
    v: 1 as const,
    detail: full ? ("full" as const) : ("summary" as const),
    generatedAt: new Date(s.now).toISOString(),
    status: rollUp(issues),
    issues,
    daemon: {
      pid: daemon.pid,
      uptimeMs: Math.max(0, s.now - daemon.processStartedAt),
      mode: "http-bridge" as const,
      workspaceCwd: config.workspace,
      version: config.version,
      daemonId: daemon.id,
      startup: {
        processStartedAt: new Date(daemon.processStartedAt).toISOString(),
        listenerReadyAt: daemon.listenerReadyAt === null ? null : new Date(daemon.listenerReadyAt).toISOString(),
        processToListenMs: daemon.listenerReadyAt === null ? null : daemon.listenerReadyAt - daemon.processStartedAt,
      },
    },
    security: {
      tokenConfigured: config.token !== null,
      requireAuth: config.requireAuth,
      loopbackBind: config.loopbackBind,
      allowOriginConfigured: config.origins.any || config.origins.origins.size > 0,
      allowOriginMode: config.origins.any ? ("any" as const) : config.origins.origins.size > 0 ? ("allowlist" as const) : ("none" as const),
      sessionShellCommandEnabled: false,
    },
    limits: {
      maxSessions: config.limits.maxSessions,
      maxTotalSessions: config.limits.maxTotalSessions,
      maxWorkspaces: config.limits.maxWorkspaces,
      maxPendingPromptsPerSession: config.limits.maxPendingPromptsPerSession,
      listenerMaxConnections: config.limits.listenerMaxConnections,
      eventRingSize: config.limits.eventRingSize,
      promptDeadlineMs: config.limits.promptDeadlineMs,
      writerIdleTimeoutMs: config.limits.writerIdleTimeoutMs,
      channelIdleTimeoutMs: config.limits.channelIdleTimeoutMs,
      sessionIdleTimeoutMs: config.limits.sessionIdleTimeoutMs,
      sessionReapIntervalMs: config.limits.sessionReapIntervalMs,
      permissionResponseTimeoutMs: config.limits.permissionResponseTimeoutMs,
      initTimeoutMs: config.limits.initTimeoutMs,
      sessionRestoreTimeoutMs: config.limits.sessionRestoreTimeoutMs,
      acpConnectionCap: config.limits.acpConnectionCap,
      memoryBudgetMb: config.limits.memoryBudgetMb,
      maxJournalBytes: config.limits.maxJournalBytes,
      maxJournalEvents: config.limits.maxJournalEvents,
      mcpClientBudget: config.mcp.clientBudget,
      mcpBudgetMode: config.mcp.budgetMode,
      mcpPool: config.mcp.pool,
      childHeapMode: config.childHeapMode,
    },
    runtime: {
      sessions: { active: activity.sessions },
      permissions: { pending: activity.pendingPermissions, policy: config.settings.permissionStrategy },
      prompts: { active: activity.activePrompts },
      channel: { live: activity.liveChannels > 0, childPids: [...activity.childPids] },
      workspaces: s.workspaces.map((w) => ({
        workspaceId: w.workspaceId,
        workspaceCwd: w.workspaceCwd,
        primary: w.primary,
        state: w.state,
        childPid: w.childPid,
        sessions: w.sessions,
        lastError: w.lastError,
      })),
      transport: {
        restSseActive: s.sseStreams,
        activeRequests: s.activeRequests,
        acp: { enabled: false, connections: 0, connectionStreams: 0, sessionStreams: 0, sseStreams: 0, wsStreams: 0, pendingClientRequests: 0 },
      },
      rateLimit: {
        enabled: config.rateLimit.enabled,
        rejectedSinceStart: s.rateLimitRejected ?? { prompt: 0, mutation: 0, read: 0 },
      },
      memory: s.memory ?? { rssBytes: null, heapUsedBytes: null },
      ...(s.checkpoints ? { checkpoints: s.checkpoints } : {}),
    },
    ...(full
      ? {
          workspaces: s.workspaces.map((w) => ({ workspaceCwd: w.workspaceCwd, primary: w.workspaceCwd === config.workspace, runtime: w.channelLive ? ("live" as const) : ("not_started" as const) })),
          log: { destination: "stderr" as const, level: config.log.level, format: config.log.format },
          full: { workspace: full.sections },
        }
      : {}),
  };
}
