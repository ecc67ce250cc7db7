/**
 * What the event stream carries, as named TypeBox schemas: the envelope (`SseEnvelope`), each event
 * type's `data` (`<Type>Event`), and `SseEvent`, the envelope discriminated by `type` over every
 * event the daemon emits. The events module owns them; the server publishes them under
 * `components.schemas` of `/openapi.json` (`EVENT_SCHEMAS`, loaded with the document, never at
 * boot: `server/lazy-seams.ts`), and the contract test checks every frame the test suites receive
 * against them.
 *
 * Objects the daemon builds are closed (`additionalProperties: false`), so a field published
 * without its schema fails the contract test. What the agent supplies (an ACP update, a tool call,
 * permission options) is passed through as it came, and stays open.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";
import { AGENT_TURN_ERROR_KINDS } from "./turn-error-kinds.ts";

const closed = <T extends TProperties>(properties: T, description: string) => Type.Object(properties, { additionalProperties: false, description });
const count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
const eventId = (description: string) => Type.Integer({ minimum: 0, description });
const sessionId = Type.String({ description: "The session the event belongs to" });
const promptId = Type.String({ description: "The prompt the event belongs to" });
const requestId = Type.String({ description: "The permission request (the vote target)" });
const literals = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  ) as unknown as TSchema & { static: T[number] };

/** The closed set of `turn_error` `errorKind`s: the agent's, and the prompt deadline's own. */
export const TURN_ERROR_KINDS = [...AGENT_TURN_ERROR_KINDS, "prompt_deadline_exceeded"] as const;

/** The cancel record a turn ended by a cancel carries. */
const PromptCancelled = closed(
  { cancelledAt: Type.String({ format: "date-time" }), elapsedMs: Type.Integer({ minimum: 0, description: "From the prompt's start (or queueing) to the cancel" }) },
  "When the prompt was cancelled",
);

export const SessionUpdateEvent = Type.Object(
  {
    sessionId,
    update: Type.Object(
      { sessionUpdate: Type.String({ description: "The ACP update kind (agent_message_chunk, tool_call, …)" }) },
      { additionalProperties: true, description: "The ACP `session/update` payload, as the agent sent it (the prompt echo adds `_meta.source: bridge-echo`)" },
    ),
    _meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true, description: "An ACP `session/update` notification of the agent, or the daemon's echo of a prompt's blocks" },
);

export const SessionMetadataUpdatedEvent = closed(
  {
    sessionId,
    displayName: Type.Optional(Type.String()),
    titleSource: Type.Optional(Type.Union([Type.Literal("manual"), Type.Literal("auto")])),
    prs: Type.Optional(Type.Array(closed({ number: Type.Integer(), url: Type.String(), state: Type.Optional(Type.String()) }, "A pull request linked to the session"))),
  },
  "`PATCH /session/:id/metadata` changed these fields",
);

export const TurnCompleteEvent = closed(
  {
    sessionId,
    promptId,
    stopReason: Type.String({ description: "The ACP stop reason (`end_turn`, `cancelled`, `max_tokens`, …)" }),
    promptCancelled: Type.Optional(PromptCancelled),
  },
  "A prompt finished",
);

export const TurnErrorEvent = closed(
  {
    sessionId,
    promptId,
    message: Type.String(),
    code: Type.Optional(Type.String({ description: "Stable code, e.g. `channel_closed`, `prompt_deadline_exceeded`, `agent_turn_unanswered`" })),
    errorKind: Type.Optional(literals(TURN_ERROR_KINDS, "The failure's class (closed set)")),
  },
  "A prompt failed or its deadline expired",
);

export const PromptCancelledEvent = closed(
  { sessionId, reason: Type.Optional(literals(["session_closed", "prompt_deadline_exceeded"] as const, "Absent for a client's cancel")) },
  "A prompt was cancelled (by a client, its deadline, or the session closing); its turn still ends with turn_complete or turn_error",
);

export const PendingPromptAddedEvent = closed(
  { sessionId, promptId, text: Type.String({ description: "The prompt's text blocks" }), queuedAt: Type.Integer({ description: "Epoch milliseconds" }) },
  "A prompt was queued behind another",
);

export const PendingPromptStartedEvent = closed({ sessionId, promptId, text: Type.String() }, "A queued prompt started");

export const PendingPromptCompletedEvent = closed({ sessionId, promptId, state: literals(["completed", "failed"] as const) }, "A prompt that had been queued ended");

export const ModelSwitchedEvent = closed({ sessionId, modelId: Type.String() }, "The session's model changed");

export const ModelSwitchFailedEvent = closed(
  { sessionId, requestedModelId: Type.String(), error: Type.String() },
  "A model switch was rejected (on an attach, the only signal)",
);

const PermissionOutcome = Type.Union([
  closed({ outcome: Type.Literal("selected"), optionId: Type.String() }, "An option was chosen"),
  closed({ outcome: Type.Literal("cancelled") }, "The request was cancelled"),
]);

export const PermissionRequestEvent = closed(
  {
    requestId,
    sessionId,
    toolCall: Type.Unknown({ description: "The ACP tool call the agent asks about, as it sent it" }),
    options: Type.Array(
      Type.Object(
        { optionId: Type.String() },
        { additionalProperties: true, description: "An ACP permission option (`optionId`, `name`, `kind`), as the agent sent it" },
      ),
    ),
  },
  "The agent needs tool confirmation; vote with POST /session/:id/permission/:requestId",
);

export const PermissionResolvedEvent = closed(
  {
    requestId,
    sessionId,
    outcome: PermissionOutcome,
    voterClientId: Type.Optional(Type.String()),
    reason: Type.Optional(literals(["timeout", "session_closed", "prompt_cancelled", "agent_cancelled", "channel_closed"] as const, "Why it was cancelled; absent when a vote decided it")),
  },
  "A permission request was decided or cancelled",
);

export const PermissionForbiddenEvent = closed(
  { requestId, sessionId, clientId: Type.Optional(Type.String()), reason: literals(["designated_mismatch", "remote_not_allowed"] as const) },
  "A vote was refused by the mediation policy",
);

export const PermissionPartialVoteEvent = closed(
  {
    requestId,
    sessionId,
    votesReceived: count(),
    votesNeeded: count(),
    quorum: count(),
    optionTallies: Type.Record(Type.String(), count(), { description: "Votes per option id" }),
  },
  "A consensus vote was counted; the request is still pending",
);

export const SessionClosedEvent = closed(
  {
    sessionId,
    reason: literals(["client_close", "idle_timeout", "last_client_detached", "workspace_removed", "workspace_runtime_stop", "worktree_reset"] as const),
    closedBy: Type.Optional(Type.String({ description: "The client id that closed it" })),
  },
  "The session was closed; the stream ends",
);

export const SessionDiedEvent = closed(
  {
    sessionId,
    reason: literals(
      ["channel_closed", "daemon_shutdown", "output_rejected", "agent_unresponsive"] as const,
      "`output_rejected`: the daemon stopped the agent for what it wrote on stdout; `agent_unresponsive`: it stopped answering or reading its input and was restarted",
    ),
    exitCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    signalCode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    message: Type.Optional(Type.String({ description: "What happened, when the daemon ended the agent for a reason of its own" })),
  },
  "The agent went away or the daemon is shutting down; the stream ends",
);

export const PermissionRequestRefusedEvent = Type.Union(
  [
    closed(
      { sessionId, reason: Type.Literal("too_many_options"), options: count("How many options the request offered"), limit: count("The most the daemon accepts") },
      "The request offered more options than the daemon accepts",
    ),
    closed(
      { sessionId, reason: Type.Literal("option_id_too_long"), bytes: count("The longest option id, in UTF-8 bytes"), limit: count("The longest the daemon accepts") },
      "An option id was longer than the daemon accepts",
    ),
  ],
  {
    description:
      "The daemon refused a permission request of the agent without asking anyone: the agent was answered with JSON-RPC error -32602 and these data; its turn goes on",
  },
);

export const AgentOutputRejectedEvent = closed(
  {
    sessionId,
    bytes: count("The message's length in bytes"),
    limit: count("The daemon's line limit it passed"),
    method: Type.Optional(Type.String({ description: "The method the message carried (a request or a notification; absent for an answer)" })),
  },
  "A message the agent wrote for this session was over the daemon's line limit and was dropped; the session and the agent go on (an answer the daemon waited for fails with `output_rejected`)",
);

export const SlowClientWarningEvent = closed(
  {
    queueSize: count(),
    maxQueued: count(),
    lastEventId: eventId("The newest event id when the warning was raised"),
    queuedBytes: count(),
    maxQueuedBytes: count(),
    threshold: literals(["frames", "bytes", "frames_and_bytes"] as const, "Which bound crossed 75%"),
  },
  "Synthetic (no id): this subscriber's queue crossed 75% of a bound; once per episode",
);

export const ClientEvictedEvent = Type.Union(
  [
    closed(
      {
        reason: literals(["queue_overflow", "queue_bytes_overflow"] as const),
        droppedAfter: eventId("Reconnect with this Last-Event-ID to lose nothing the ring still holds"),
        queueSize: count(),
        maxQueued: count(),
        queuedBytes: count(),
        maxQueuedBytes: count(),
        eventBytes: count(),
      },
      "The subscriber's queue overflowed",
    ),
    closed(
      { reason: Type.Literal("writer_idle_timeout"), errorKind: Type.Literal("writer_idle_timeout"), idleForMs: count(), timeoutMs: count() },
      "The client accepted nothing for the writer idle timeout",
    ),
  ],
  { description: "Synthetic (no id): the subscriber is evicted; the stream ends after this frame" },
);

export const StateResyncRequiredEvent = closed(
  {
    reason: literals(["epoch_reset", "ring_evicted", "replay_budget_exceeded"] as const),
    detail: Type.Optional(Type.Literal("epoch_mismatch")),
    lastDeliveredId: Type.Optional(eventId("The last id the client had, or was replayed")),
    earliestAvailableId: eventId("The oldest id the replay can still deliver"),
  },
  "Synthetic (no id): the replay is incomplete; recover through POST /session/:id/load",
);

export const ReplayCompleteEvent = closed(
  { replayedCount: count(), lastReplayedEventId: Type.Optional(eventId("The last replayed id")), lastEventId: eventId("The newest id when the subscription began") },
  "Synthetic (no id): the Last-Event-ID replay is over; live events follow",
);

export const SessionRecordingDegradedEvent = closed(
  {
    sessionId,
    reason: literals(
      ["unavailable", "read_only", "write_failed"] as const,
      "`unavailable`: the database could not be opened (or another process's lock keeps it from opening); `read_only`: it can only be read; `write_failed`: a write failed (or another process's lock outlasted the wait)",
    ),
    error: Type.String({ description: "What the store reported" }),
    since: Type.String({ format: "date-time", description: "When recording stopped" }),
    transient: Type.Boolean({ description: "Recording resumes by itself once another process releases the database's lock (`session_recording_resumed` then follows); false: not before the daemon restarts" }),
    firstUnrecordedEventId: eventId(
      "The id of the first event the journal lacks: the one right after this notice (which is journaled when at all possible). Every earlier event is journaled, or follows an earlier notice; every later one is unrecorded too, until a `session_recording_resumed`",
    ),
    unrecordedEvents: count("How many events from `firstUnrecordedEventId` on were already published, unrecorded, when this was told (they follow it); `session_recording_resumed` gives the whole count"),
  },
  "The session's events are no longer recorded (the live session goes on; transcript and load will miss them). Always delivered before the first event it did not record",
);

export const SessionRecordingResumedEvent = closed(
  {
    sessionId,
    noticeEventId: eventId("The id of the `session_recording_degraded` notice this ends"),
    firstUnrecordedEventId: eventId("As the notice said: the first id the journal lacks"),
    unrecordedEvents: count("How many events were delivered unrecorded, ids `firstUnrecordedEventId` on, up to this one (the journal marks them as a `recording_gap`, which counts the notice too)"),
  },
  "Recording works again after a stop that was to pass (another process held the database's lock); this event and what follows are journaled",
);

/** Not a stream frame: the first entry of a `load` reply's `compactedReplay` when older events were left out. */
export const HistoryTruncatedEvent = closed(
  {
    reason: Type.Literal("replay_window_exceeded"),
    truncatedEvents: count("Older journaled events left out of the replay"),
    retainedEvents: count("Events in the replay"),
    maxEvents: count("--max-journal-events"),
    maxBytes: count("--max-journal-bytes"),
    fullTranscriptAvailable: Type.Boolean({ description: "The left-out events can be read through /transcript" }),
  },
  "Marker (no id) leading a bounded load replay",
);

const budgetCounts = {
  liveCount: count("MCP clients live (or reserved) in the scope"),
  reservedCount: count("Budget slots reserved"),
  budget: count("The client budget (`--mcp-client-budget`)"),
};
const budgetScope = Type.Optional(Type.String({ maxLength: 256, description: "Where the budget applies (`session` when absent; e.g. `workspace` for a pooled budget)" }));

export const McpBudgetWarningEvent = closed(
  {
    ...budgetCounts,
    thresholdRatio: Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "The crossed fraction of the budget (0.75)" }),
    mode: literals(["enforce", "warn", "off"] as const, "The budget mode (`warn` or `enforce` in practice)"),
    scope: budgetScope,
  },
  "The agent's MCP clients crossed 75% of the budget (re-armed below 37.5%)",
);

export const McpChildRefusedBatchEvent = closed(
  {
    refusedServers: Type.Array(
      closed(
        { name: Type.String({ maxLength: 256 }), transport: Type.String({ maxLength: 256 }), reason: Type.String({ maxLength: 256, description: "`budget_exhausted`" }) },
        "A server the budget refused",
      ),
      { maxItems: 1024 },
    ),
    ...budgetCounts,
    mode: literals(["enforce", "warn", "off"] as const, "The budget mode (`enforce` in practice)"),
    scope: budgetScope,
  },
  "MCP servers the budget refused in one discovery pass (or one refused lazy spawn)",
);

export const ApprovalModeChangedEvent = closed(
  {
    sessionId,
    previous: Type.String({ description: "The approval mode before the change" }),
    next: Type.String({ description: "The approval mode now" }),
    persisted: Type.Boolean({ description: "Whether the agent persisted the mode to settings" }),
  },
  "`POST /session/:id/approval-mode` changed the session's approval mode",
);

export const ToolToggledEvent = closed(
  { toolName: Type.String(), enabled: Type.Boolean() },
  "`POST /workspace/tools/:name/enable` changed the workspace's `tools.disabled` (published to every live session of the workspace)",
);

export const MemoryChangedEvent = closed(
  {
    scope: literals(["workspace", "global"] as const),
    filePath: Type.String(),
    mode: literals(["append", "replace"] as const),
    bytesWritten: Type.Integer({ minimum: 0 }),
  },
  "`POST /workspace/memory` changed an instruction file (published to every live session of the workspace)",
);

export const AgentChangedEvent = closed(
  {
    change: literals(["created", "updated", "deleted"] as const),
    name: Type.String(),
    level: literals(["project", "user"] as const),
  },
  "A subagent definition was created, updated or deleted through `/workspace/agents` (published to every live session of the workspace)",
);

export const LanguageChangedEvent = closed(
  {
    sessionId: Type.Optional(Type.String({ description: "Set on a session's change (`POST /session/:id/language`)" })),
    language: Type.String(),
    outputLanguage: Type.Union([Type.String(), Type.Null()], { description: "The language the agent answers in, when synced; null: unchanged" }),
    refreshed: Type.Optional(Type.Boolean({ description: "Session change: the agent applied it to its sessions" })),
    userLevel: Type.Optional(Type.Boolean({ description: "`POST /language`: the user's setting, for every workspace" })),
  },
  "The language of the agent's replies changed (`POST /language` or `POST /session/:id/language`)",
);

export const WorkspaceInitializedEvent = closed(
  { path: Type.String({ description: "The workspace context file" }), action: literals(["created", "overwrote", "noop"] as const) },
  "`POST /workspace/init` prepared the workspace context file (published to every live session of the workspace)",
);

export const McpServerRestartedEvent = closed(
  { serverName: Type.String(), durationMs: count(), entryIndex: Type.Optional(count("The pooled entry restarted")) },
  "An MCP server was restarted (published to every live session of the workspace)",
);

export const McpServerRestartRefusedEvent = closed(
  {
    serverName: Type.String(),
    reason: Type.String({ description: "`budget_would_exceed`, `in_flight`, `disabled` or `restart_failed`" }),
    entryIndex: Type.Optional(count("The pooled entry refused")),
    details: Type.Optional(Type.String()),
  },
  "An MCP server restart was refused or failed (published to every live session of the workspace)",
);

export const SettingsChangedEvent = closed(
  { key: Type.String({ description: "The settings key changed (`skills.disabled`)" }), value: Type.Unknown({ description: "Its new value" }), scope: Type.Literal("workspace") },
  "A workspace setting changed (published to every live session of the workspace)",
);

export const McpServerAddedEvent = closed(
  {
    name: Type.String(),
    transport: Type.String({ description: "`stdio` or `http` (the built-in agent); Qwen Code also names `sse`, `websocket`, `sdk`" }),
    replaced: Type.Boolean({ description: "A runtime server of the name was replaced" }),
    shadowedSettings: Type.Boolean({ description: "It stands over a declared server of the same name" }),
    toolCount: count("Tools it offers"),
    originatorClientId: Type.Optional(Type.String()),
  },
  "A runtime MCP server was added to the workspace's agent (`POST /workspace/mcp/servers`; published to every live session of the workspace)",
);

export const McpServerRemovedEvent = closed(
  {
    name: Type.String(),
    wasShadowingSettings: Type.Boolean({ description: "A declared server of the same name takes its place" }),
    originatorClientId: Type.Optional(Type.String()),
  },
  "A runtime MCP server was removed (`DELETE /workspace/mcp/servers/:name`; published to every live session of the workspace)",
);

export const ExtensionsChangedEvent = closed(
  {
    status: literals(["installed", "enabled", "disabled", "uninstalled", "failed"] as const, "What the operation did, or `failed`"),
    name: Type.Optional(Type.String({ description: "The extension" })),
    source: Type.Optional(Type.String({ description: "The folder an install copied" })),
    refreshed: Type.Integer({ minimum: 0, description: "Sessions of the live built-in agent that took the change" }),
    failed: Type.Integer({ minimum: 0 }),
    error: Type.Optional(Type.String({ maxLength: 500 })),
  },
  "An extension operation finished (published to every live session of the workspace)",
);

export const TrustChangeRequestedEvent = closed(
  {
    workspaceCwd: Type.String({ description: "The workspace" }),
    desiredState: literals(["trusted", "untrusted"] as const, "What the user decided (svc has applied it)"),
    reason: Type.Optional(Type.String({ maxLength: 1024, description: "Why, as the request gave it" })),
  },
  "`POST /workspace/trust/request` changed the workspace's trust (published to every live session of the workspace)",
);

export const SessionRewoundEvent = closed(
  {
    sessionId,
    rewound: Type.Boolean({ description: "Every file to restore was restored" }),
    promptId: Type.String({ description: "The turn rewound to before" }),
    targetTurnIndex: Type.Union([count(), Type.Null()], { description: "Its index among the session's turns; null when the daemon had no record of it" }),
    filesChanged: Type.Array(Type.String(), { description: "Workspace-relative paths restored (or removed: the turn created them)" }),
    filesFailed: Type.Array(Type.String(), { description: "Paths that could not be restored" }),
    conversationRewound: Type.Boolean({ description: "The agent's conversation was cut back to before the turn" }),
  },
  "`POST /session/:id/rewind` put files and/or the conversation back to before a turn",
);

export const SessionBranchedEvent = closed(
  {
    sessionId,
    sourceSessionId: Type.String({ description: "The session branched from (this one)" }),
    newSessionId: Type.String({ description: "The branch" }),
    displayName: Type.String({ description: "The branch's display name" }),
    parentPromptId: Type.Optional(Type.String({ description: "The last turn of this session the branch holds" })),
  },
  "`POST /session/:id/branch` made a branch of this session (published on the parent)",
);

/** Each event type the daemon emits, with the schema of its `data`. */
export const EVENT_DATA = {
  session_update: SessionUpdateEvent,
  session_metadata_updated: SessionMetadataUpdatedEvent,
  turn_complete: TurnCompleteEvent,
  turn_error: TurnErrorEvent,
  prompt_cancelled: PromptCancelledEvent,
  pending_prompt_added: PendingPromptAddedEvent,
  pending_prompt_started: PendingPromptStartedEvent,
  pending_prompt_completed: PendingPromptCompletedEvent,
  model_switched: ModelSwitchedEvent,
  model_switch_failed: ModelSwitchFailedEvent,
  permission_request: PermissionRequestEvent,
  permission_resolved: PermissionResolvedEvent,
  permission_forbidden: PermissionForbiddenEvent,
  permission_partial_vote: PermissionPartialVoteEvent,
  permission_request_refused: PermissionRequestRefusedEvent,
  session_closed: SessionClosedEvent,
  session_died: SessionDiedEvent,
  agent_output_rejected: AgentOutputRejectedEvent,
  slow_client_warning: SlowClientWarningEvent,
  client_evicted: ClientEvictedEvent,
  state_resync_required: StateResyncRequiredEvent,
  replay_complete: ReplayCompleteEvent,
  session_recording_degraded: SessionRecordingDegradedEvent,
  session_recording_resumed: SessionRecordingResumedEvent,
  mcp_budget_warning: McpBudgetWarningEvent,
  mcp_child_refused_batch: McpChildRefusedBatchEvent,
  approval_mode_changed: ApprovalModeChangedEvent,
  tool_toggled: ToolToggledEvent,
  workspace_initialized: WorkspaceInitializedEvent,
  memory_changed: MemoryChangedEvent,
  agent_changed: AgentChangedEvent,
  language_changed: LanguageChangedEvent,
  mcp_server_restarted: McpServerRestartedEvent,
  mcp_server_restart_refused: McpServerRestartRefusedEvent,
  settings_changed: SettingsChangedEvent,
  mcp_server_added: McpServerAddedEvent,
  mcp_server_removed: McpServerRemovedEvent,
  extensions_changed: ExtensionsChangedEvent,
  trust_change_requested: TrustChangeRequestedEvent,
  session_rewound: SessionRewoundEvent,
  session_branched: SessionBranchedEvent,
} as const;

export type EventType = keyof typeof EVENT_DATA;
/** The `data` of an event of type `K`. */
export type EventData<K extends EventType> = Static<(typeof EVENT_DATA)[K]>;

const pascal = (type: string) => type.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
/** The component name of an event type's data schema: `turn_complete` → `TurnCompleteEvent`. */
export const eventSchemaName = (type: string) => `${pascal(type)}Event`;
/** The component name of an event type's whole frame (envelope and data): `turn_complete` → `TurnCompleteFrame`. */
export const eventFrameName = (type: string) => `${pascal(type)}Frame`;

const envelopeFields = {
  id: Type.Optional(Type.Integer({ minimum: 1, description: "Per-session monotonic id (also the `id:` line); absent on synthetic frames" })),
  v: Type.Literal(1, { description: "Frame layout version" }),
  promptId: Type.Optional(Type.String({ description: "The prompt the event belongs to" })),
  originatorClientId: Type.Optional(Type.String({ description: "The client whose request caused the event" })),
  _meta: closed({ serverTimestamp: Type.Integer({ description: "Epoch milliseconds at publish" }) }, "Daemon metadata"),
};

/** The envelope on every frame's `data:` line; `type` equals the frame's `event:` line. */
export const SseEnvelope = closed(
  { ...envelopeFields, type: Type.String({ description: "The event type (see SseEvent)" }), data: Type.Unknown({ description: "The event's data; its schema depends on `type`" }) },
  "The JSON envelope on an SSE frame's `data:` line",
);

/** The place of a schema under `components.schemas` of the served document. */
const componentPath = (name: string) => `#/components/schemas/${name}`;
/** A reference to a schema under `components.schemas` of the served document. */
const componentRef = (name: string) => Type.Unsafe<unknown>({ $ref: componentPath(name) });

/** The envelope of one event type, its `data` by reference to the named data schema. */
const envelopeOf = (type: EventType): TObject =>
  closed({ ...envelopeFields, type: Type.Literal(type), data: componentRef(eventSchemaName(type)) }, `A \`${type}\` frame`);

const EVENT_TYPES = Object.keys(EVENT_DATA) as EventType[];

/** Each event type's frame, a named schema (`<Type>Frame`) so the discriminator's mapping can name it. */
const FRAME_SCHEMAS: Record<string, TSchema> = Object.fromEntries(EVENT_TYPES.map((type) => [eventFrameName(type), envelopeOf(type)]));

/**
 * Every frame the stream carries: the envelope, discriminated by `type` (`oneOf` of the named
 * frames, exactly one matches, since each fixes `type` to its own literal; the mapping takes a
 * generator from a `type` value straight to its frame).
 */
export const SseEvent = Type.Unsafe<unknown>({
  oneOf: EVENT_TYPES.map((type) => componentRef(eventFrameName(type))),
  discriminator: { propertyName: "type", mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, componentPath(eventFrameName(type))])) },
  description: "One frame of GET /session/:id/events: the envelope, its `data` schema chosen by `type`",
});

/** The named schemas `/openapi.json` publishes under `components.schemas`. */
export const EVENT_SCHEMAS: Record<string, TSchema> = {
  SseEnvelope,
  SseEvent,
  ...FRAME_SCHEMAS,
  ...Object.fromEntries(Object.entries(EVENT_DATA).map(([type, schema]) => [eventSchemaName(type), schema])),
  HistoryTruncatedEvent,
};
