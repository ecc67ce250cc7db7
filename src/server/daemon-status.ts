/**
 * The `/daemon/status` snapshot (pure): daemon identity, security posture, limits, live runtime
 * counts, and the issues rolled up into one overall status. It reads in-memory state only and never
 * carries tokens, client ids, allow-origin patterns or connection ids. What has to be read from the
 * system (memory use) arrives as an input that may be missing; the snapshot then says so, it never fails.
 */
import type { Config } from "../config/config.ts";
import type { RecordingDegraded } from "../store/store.ts";
import type { ActivitySnapshot, DaemonIdentity } from "./app-deps.ts";
import type { RateTier } from "./security/rate-limiter.ts";

export type Severity = "info" | "warning" | "error";

export interface StatusIssue {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
}

/** The process's memory use (read by the route; an input is null when it could not be read). */
export interface ProcessMemory {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

export interface StatusInputs {
  readonly config: Config;
  readonly daemon: DaemonIdentity;
  readonly activity: ActivitySnapshot;
  readonly activeRequests: number;
  readonly sseStreams: number;
  readonly rateLimitRejected: Readonly<Record<RateTier, number>> | null;
  readonly now: number;
  readonly memory: ProcessMemory | null;
  /** Null while session recording works (or the daemon has no store). */
  readonly recording?: RecordingDegraded | null;
}

/** Share of a cap at which capacity issues are raised. */
const CAPACITY_WARN_RATIO = 0.8;

export function statusIssues(s: StatusInputs): StatusIssue[] {
  const issues: StatusIssue[] = [];
  const { limits } = s.config;
  const sessionCap = limits.maxTotalSessions > 0 ? limits.maxTotalSessions : limits.maxSessions;
  if (sessionCap > 0 && s.activity.sessions >= sessionCap * CAPACITY_WARN_RATIO)
    issues.push({
      code: "session_capacity_high",
      severity: s.activity.sessions >= sessionCap ? "error" : "warning",
      message: `${s.activity.sessions} of ${sessionCap} sessions in use`,
    });
  const connections = s.activeRequests + s.sseStreams;
  if (connections >= limits.listenerMaxConnections * CAPACITY_WARN_RATIO)
    issues.push({
      code: "connection_capacity_high",
      severity: connections >= limits.listenerMaxConnections ? "error" : "warning",
      message: `${connections} of ${limits.listenerMaxConnections} connections in use`,
    });
  if (s.activity.pendingPermissions > 0)
    issues.push({ code: "pending_permissions", severity: "info", message: `${s.activity.pendingPermissions} permission request(s) await a vote` });
  if (s.rateLimitRejected) {
    const total = s.rateLimitRejected.prompt + s.rateLimitRejected.mutation + s.rateLimitRejected.read;
    if (total > 0) issues.push({ code: "rate_limit_hits", severity: "info", message: `${total} request(s) rejected by the rate limiter` });
  }
  if (s.recording)
    issues.push({
      code: "recording_degraded",
      severity: "warning",
      message:
        s.recording.reason === "unavailable"
          ? `session history is not being recorded: the database could not be opened (${s.recording.error})`
          : `session history is not being recorded since ${new Date(s.recording.since).toISOString()}: a write failed (${s.recording.error})`,
    });
  if (s.memory === null)
    issues.push({
      code: "process_memory_unavailable",
      severity: "warning",
      message: "the daemon's memory use could not be read; it may be out of file descriptors",
    });
  return issues;
}

export function rollUp(issues: readonly StatusIssue[]): "ok" | "warning" | "error" {
  if (issues.some((i) => i.severity === "error")) return "error";
  if (issues.some((i) => i.severity === "warning")) return "warning";
  return "ok";
}

export function daemonStatus(s: StatusInputs, detail: "summary" | "full") {
  const { config, daemon, activity } = s;
  const issues = statusIssues(s);
  return {
    v: 1 as const,
    detail,
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
    },
    ...(detail === "full"
      ? {
          workspaces: [{ workspaceCwd: config.workspace, primary: true, runtime: activity.liveChannels > 0 ? ("live" as const) : ("not_started" as const) }],
          log: { destination: "stderr" as const, level: config.log.level, format: config.log.format },
        }
      : {}),
  };
}
