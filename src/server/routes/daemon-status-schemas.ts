/**
 * `GET /daemon/status`: the `detail` query and the snapshot (`server/daemon-status.ts`, spec
 * "Daemon status"). Enumerations the snapshot copies from the configuration are plain strings here:
 * the configuration owns their values.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { openObject } from "../schemas/open-object.ts";
import { StatusCell } from "../schemas/workspace-cells.ts";

const invalidDetail = () => new DaemonError(400, "invalid_detail", "detail must be one of: summary, full").body();

export const DaemonStatusQuery = t.Object({
  detail: t.Optional(t.Union([t.Literal("summary"), t.Literal("full")], { description: "`summary` (default) or `full`", error: invalidDetail })),
});

const Count = Type.Integer({ minimum: 0 });
const orNull = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Severity = t.Union([t.Literal("warning"), t.Literal("error")]);
const PerTier = t.Object({ prompt: Count, mutation: Count, read: Count });

/**
 * One workspace section of `full` (`server/status-sections.ts`): its payload as its status route
 * answers it, or why it is unavailable. Payloads share the status routes' envelope; the members
 * past it (MCP servers, skills, …) depend on the section.
 */
const SectionPayload = openObject(
  {
    v: t.Optional(t.Literal(1)),
    workspaceCwd: t.Optional(t.String()),
    initialized: t.Optional(t.Boolean()),
    acpChannelLive: t.Optional(t.Boolean()),
    errors: t.Optional(t.Array(StatusCell)),
    cells: t.Optional(t.Array(StatusCell)),
  },
  { description: "The section's payload, as `GET /workspace/<section>` answers it" },
);
const Section = t.Union([
  t.Object({
    status: t.Union([t.Literal("ok"), t.Literal("warning"), t.Literal("error")], { description: "the most severe status among the payload's cells" }),
    durationMs: Count,
    summary: t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()]), { description: "the payload's scalars and `<list>Count` per list" }),
    data: SectionPayload,
  }),
  t.Object({
    status: t.Literal("unavailable"),
    durationMs: Count,
    error: t.Object({ kind: t.Union([t.Literal("timeout"), t.Literal("error")]), message: t.String() }),
  }),
]);

export const DaemonStatus = t.Object({
  v: t.Literal(1),
  detail: t.Union([t.Literal("summary"), t.Literal("full")]),
  generatedAt: t.String({ description: "ISO 8601 timestamp" }),
  status: t.Union([t.Literal("ok"), t.Literal("warning"), t.Literal("error")], { description: "the most severe issue's level" }),
  issues: t.Array(t.Object({ code: t.String(), severity: Severity, message: t.String(), section: t.Optional(t.String({ description: "the `full` workspace section it is about" })) })),
  daemon: t.Object({
    pid: Type.Integer(),
    uptimeMs: t.Number(),
    mode: t.Literal("http-bridge"),
    workspaceCwd: t.String(),
    version: t.String(),
    daemonId: t.String(),
    startup: t.Object({ processStartedAt: t.String(), listenerReadyAt: orNull(t.String()), processToListenMs: orNull(t.Number()) }),
  }),
  security: t.Object({
    tokenConfigured: t.Boolean(),
    requireAuth: t.Boolean(),
    loopbackBind: t.Boolean(),
    allowOriginConfigured: t.Boolean(),
    allowOriginMode: t.Union([t.Literal("any"), t.Literal("allowlist"), t.Literal("none")]),
    sessionShellCommandEnabled: t.Boolean(),
  }),
  limits: t.Object({
    maxSessions: Count,
    maxTotalSessions: Count,
    maxWorkspaces: Count,
    maxPendingPromptsPerSession: Count,
    listenerMaxConnections: Count,
    eventRingSize: Count,
    promptDeadlineMs: orNull(Count),
    writerIdleTimeoutMs: orNull(Count),
    channelIdleTimeoutMs: Count,
    sessionIdleTimeoutMs: Count,
    sessionReapIntervalMs: Count,
    permissionResponseTimeoutMs: Count,
    initTimeoutMs: Count,
    sessionRestoreTimeoutMs: Count,
    acpConnectionCap: Count,
    memoryBudgetMb: orNull(t.Number()),
    maxJournalBytes: Count,
    maxJournalEvents: Count,
    mcpClientBudget: orNull(Count),
    mcpBudgetMode: t.String(),
    mcpPool: t.Boolean(),
    childHeapMode: t.String(),
  }),
  runtime: t.Object({
    sessions: t.Object({ active: Count }),
    permissions: t.Object({ pending: Count, policy: t.String() }),
    prompts: t.Object({ active: Count }),
    channel: t.Object({ live: t.Boolean(), childPids: t.Array(Type.Integer()) }),
    workspaces: t.Array(
      t.Object({
        workspaceId: t.String(),
        workspaceCwd: t.String(),
        primary: t.Boolean(),
        state: t.Union([t.Literal("cold"), t.Literal("starting"), t.Literal("live"), t.Literal("stopping")]),
        childPid: orNull(Type.Integer()),
        sessions: Count,
        lastError: orNull(t.Object({ code: t.String(), message: t.String(), at: t.String({ description: "ISO 8601" }) })),
      }),
      { description: "each workspace's runtime, the primary first (registered workspaces start their agent on first use)" },
    ),
    transport: t.Object({
      restSseActive: Count,
      activeRequests: Count,
      acp: t.Object({
        enabled: t.Boolean(),
        connections: Count,
        connectionStreams: Count,
        sessionStreams: Count,
        sseStreams: Count,
        wsStreams: Count,
        pendingClientRequests: Count,
      }),
    }),
    rateLimit: t.Object({ enabled: t.Boolean(), rejectedSinceStart: PerTier }),
    memory: t.Object({ rssBytes: orNull(t.Number()), heapUsedBytes: orNull(t.Number()) }, { description: "null members: it could not be read" }),
    checkpoints: t.Optional(
      t.Object(
        {
          bytes: Count,
          count: Count,
          evictions: Count,
          maxBytes: Count,
          turns: Count,
        },
        { description: "the rewind snapshots: bytes and count of stored blobs, turns evicted (oldest first) to stay under maxBytes (`--max-snapshot-bytes`), turns recorded" },
      ),
    ),
  }),
  workspaces: t.Optional(
    t.Array(t.Object({ workspaceCwd: t.String(), primary: t.Boolean(), runtime: t.Union([t.Literal("live"), t.Literal("not_started")]) }), { description: "`full` only" }),
  ),
  log: t.Optional(t.Object({ destination: t.Literal("stderr"), level: t.String(), format: t.String() }, { description: "`full` only" })),
  full: t.Optional(
    t.Object(
      { workspace: t.Record(t.String(), Section, { description: "by section name: env, preflight, …" }) },
      { description: "`full` only: each workspace section, read on its own with a timeout" },
    ),
  ),
});
