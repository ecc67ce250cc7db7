/**
 * A live session: its event bus, registered clients, the model/mode/config state the agent
 * reported, metadata, and activity clocks. It receives its share of the agent channel's traffic
 * (updates, permission requests, channel death) as the runtime's SessionSink.
 *
 * Activity (what the idle reaper measures from `lastSeenAt`): creation, attaches, heartbeats,
 * prompt admission and the end of every turn. A client's own activity keeps its id registered (see
 * `client-ids.ts`); the prompt originator's id is pinned while its prompt is pending.
 *
 * Ids: `id` is the daemon's (what clients and the catalog know); `agentSessionId` is the agent's
 * for the same session. They differ only after a seeded restore (a fresh agent session standing in
 * for one the agent could not bring back). This class is the one place they are translated: every
 * request to the agent names `agentSessionId`, the runtime routes the agent's traffic here by it,
 * and what comes back is republished under `id`.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { EventBus, type EventJournal } from "../events/event-bus.ts";
import type { EnvelopeFields } from "../events/frame.ts";
import type { Logger } from "../logging/logger.ts";
import type { OutputRejection } from "../runtime/output-rejection.ts";
import type { ChannelDeath, SessionSink } from "../runtime/session-sinks.ts";
import type { WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import { ClientRegistry } from "./client-ids.ts";
import { titleFromAgent } from "./display-name.ts";
import { PermissionBroker, type BrokerSettings } from "./permission-broker.ts";
import { PromptQueue, type QueueHost } from "./prompt-queue.ts";
import type { SessionCheckpoints } from "./checkpoint-seam.ts";
import type { SessionSource } from "./session-source.ts";
import type { WorktreeInfo } from "./worktree-seam.ts";

/** SSE subscribers per session; past it subscribing answers 429. */
export const MAX_SUBSCRIBERS_PER_SESSION = 1024;

export interface SessionState {
  models?: unknown;
  modes?: unknown;
  configOptions?: unknown;
}

export interface SessionMetadata {
  displayName?: string;
  titleSource?: "manual" | "agent" | "auto";
  /** False: no automatic title for this session (`PATCH /session/:id/metadata {autoTitle: false}`). */
  autoTitle?: boolean;
  prs?: { number: number; url: string; state?: "open" | "merged" | "closed" }[];
}

export type EndReason = "client_close" | "worktree_reset" | "idle_timeout" | "last_client_detached" | "channel_closed" | "daemon_shutdown" | "workspace_removed" | "workspace_runtime_stop";

/**
 * How a session's end ends its prompts. Every close the daemon or a client made on purpose (a
 * workspace's removal or runtime stop included) is `session_closed`: the running prompt is cancelled,
 * queued ones end `turn_error` `session_closed`, as for `DELETE /session/:id`. Only a child that went
 * away is `channel_closed`, which reads as the agent's crash.
 */
function promptEnd(reason: EndReason): "session_closed" | "channel_closed" | "daemon_shutdown" {
  switch (reason) {
    case "channel_closed":
      return "channel_closed";
    case "daemon_shutdown":
      return "daemon_shutdown";
    default:
      return "session_closed";
  }
}

export interface SessionHooks {
  /** The session ended from the runtime side (child exit); the manager forgets it. */
  onDied(session: LiveSession, death: ChannelDeath): void;
  /** The display name or other metadata changed (the catalog keeps a copy). */
  onMetadataChanged?(session: LiveSession): void;
  /** A prompt's turn completed (`turn_complete` published); the automatic title follows the first. */
  onTurnComplete?(session: LiveSession): void;
}

export interface SessionOptions {
  readonly ringSize: number;
  readonly clock: () => number;
  /** How long a client id lives without activity (0: as long as the session). */
  readonly clientIdleTtlMs: number;
  readonly maxPendingPrompts: number;
  readonly promptDeadlineMs: number | null;
  readonly permissions: BrokerSettings;
  readonly logger: Logger;
  /** Where the bus records its events before releasing them (none: released at once, unrecorded). */
  readonly journal?: EventJournal;
  /** When the session was first created (epoch ms): a restored session keeps its catalog's; default now. */
  readonly createdAt?: number;
  /** The agent's id for this session, when it is not the daemon's (a seeded restore). */
  readonly agentSessionId?: string;
  /** Context sent to the agent ahead of the first prompt (a seeded restore's transcript summary). */
  readonly seed?: acp.ContentBlock;
  /** Where the session came from, as its creator named it (a restored one keeps its catalog's). */
  readonly source?: SessionSource | null;
  /** What the session's turns tell the checkpoints (none: no snapshots, nothing to rewind files to). */
  readonly checkpoints?: SessionCheckpoints;
  /** The session this one was branched from, and that session's last turn it holds (`session-branch.ts`). */
  readonly parent?: BranchLink | null;
  /** The git worktree the session runs in (`POST /session` with `worktree`); none: the workspace itself. */
  readonly worktree?: WorktreeInfo | null;
}

/** A branch's link to its parent: the parent's id and the prompt id of the parent's last turn the branch holds (null: the parent had none). */
export interface BranchLink {
  readonly parentSessionId: string;
  readonly parentPromptId: string | null;
}

export class LiveSession implements SessionSink, QueueHost {
  readonly bus: EventBus;
  readonly clients: ClientRegistry;
  readonly prompts: PromptQueue;
  readonly permissions: PermissionBroker;
  readonly createdAt: number;
  lastSeenAt: number;
  readonly state: SessionState;
  availableCommands: unknown[] | null = null;
  readonly metadata: SessionMetadata = {};
  /** Fields stamped on events published while a prompt runs (its id and originator). */
  promptFields: EnvelopeFields = {};
  readonly agentSessionId: string;
  readonly source: SessionSource | null;
  readonly parent: BranchLink | null;
  readonly worktree: WorktreeInfo | null;
  /** Sent once, ahead of the next prompt's content; never published. */
  private seed: acp.ContentBlock | null;
  private ended: EndReason | null = null;
  /** Aborted when the session ends: work done beside its turns (a side question) stops with it. */
  private readonly endController = new AbortController();
  private readonly checkpoints: SessionCheckpoints | null;
  private readonly clock: () => number;

  constructor(
    readonly id: string,
    readonly runtime: WorkspaceRuntime,
    state: SessionState,
    private readonly hooks: SessionHooks,
    options: SessionOptions,
  ) {
    this.clock = options.clock;
    this.agentSessionId = options.agentSessionId ?? id;
    this.seed = options.seed ?? null;
    this.source = options.source ?? null;
    this.parent = options.parent ?? null;
    this.worktree = options.worktree ?? null;
    this.createdAt = options.createdAt ?? this.clock();
    this.lastSeenAt = this.clock();
    this.state = { models: state.models, modes: state.modes, configOptions: state.configOptions };
    this.bus = new EventBus({ ringSize: options.ringSize, maxSubscribers: MAX_SUBSCRIBERS_PER_SESSION, ...(options.journal ? { journal: options.journal } : {}) });
    this.clients = new ClientRegistry({
      sessionId: id,
      idleTtlMs: options.clientIdleTtlMs,
      now: this.clock,
      onForget: () => this.permissions.electorateChanged(),
      isVoting: (clientId) => this.permissions.isVoting(clientId),
    });
    this.permissions = new PermissionBroker(
      {
        sessionId: id,
        publish: (type, data, fields) => this.publish(type, data, fields),
        electorate: () => this.clients.ids(),
        canVote: (clientId) => this.clients.has(clientId),
        isActing: (clientId) => this.clients.isActing(clientId),
        promptFields: () => this.promptFields,
      },
      options.permissions,
    );
    this.prompts = new PromptQueue(this, {
      maxPending: options.maxPendingPrompts,
      deadlineMs: options.promptDeadlineMs,
      logger: options.logger,
      onAdmitted: (prompt) => {
        if (prompt.originatorClientId) this.clients.pin(prompt.originatorClientId);
      },
      cancelPermissions: (promptId) => this.permissions.cancelAll("prompt_cancelled", promptId),
      onSettled: (prompt) => {
        if (prompt.originatorClientId) {
          this.clients.unpin(prompt.originatorClientId);
          this.clients.touch(prompt.originatorClientId);
        }
        this.noteActivity();
      },
      ...(options.checkpoints
        ? { turnStarting: options.checkpoints.turnStarted, turnAnswered: options.checkpoints.turnFinished }
        : {}),
    });
    this.checkpoints = options.checkpoints ?? null;
  }

  /** The agent is about to write `path` in the running turn: its content is kept first (checkpoints). */
  async onBeforeWrite(path: string): Promise<boolean> {
    if (this.ended || this.checkpoints === null) return false;
    return await this.checkpoints.beforeWrite(path);
  }

  /** A prompt is running or waiting, or a permission awaits a vote. */
  get busy(): boolean {
    return this.prompts.size > 0 || this.permissions.pendingCount > 0;
  }

  get workspaceCwd(): string {
    return this.runtime.cwd;
  }

  /** The directory the session works in: its worktree's checkout, else the workspace. */
  get cwd(): string {
    return this.worktree?.path ?? this.runtime.cwd;
  }

  get isEnded(): boolean {
    return this.ended !== null;
  }

  /** Aborted once the session has ended. */
  get endSignal(): AbortSignal {
    return this.endController.signal;
  }

  /** Something happened that keeps the session from counting as idle. */
  noteActivity(): void {
    this.lastSeenAt = this.clock();
  }

  /** Forgets client ids that expired (the idle reaper's scan). */
  sweepClients(): void {
    this.clients.sweep();
  }

  publish(type: string, data: unknown, fields?: EnvelopeFields): void {
    this.bus.publish(type, data, fields);
    if (type === "session_metadata_updated") this.hooks.onMetadataChanged?.(this);
    else if (type === "turn_complete") this.hooks.onTurnComplete?.(this);
  }

  /**
   * What a prompt sends the agent: its content, after the seed if one is still pending (taken
   * here: a seed goes out once, with the first prompt that reaches the agent).
   */
  agentPrompt(content: readonly acp.ContentBlock[]): acp.ContentBlock[] {
    const seed = this.seed;
    this.seed = null;
    return seed ? [seed, ...content] : [...content];
  }

  onUpdate(params: acp.SessionNotification): void {
    if (this.ended) return;
    this.track(params.update as unknown as Record<string, unknown>);
    this.bus.publish("session_update", withoutSkillDetails({ ...params, sessionId: this.id, update: withoutEchoMark(params.update) }), this.promptFields);
  }

  onPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    if (this.ended) return Promise.resolve({ outcome: { outcome: "cancelled" } });
    return this.permissions.request(params, signal);
  }

  /** Published with an id, so it is journaled and replays like the agent's updates. */
  onAgentEvent(type: string, data: Record<string, unknown>): void {
    if (this.ended) return;
    this.bus.publish(type, data);
  }

  /** Published like the agent's updates (with the running prompt's id), so it is journaled and replays. */
  onOutputRejected(rejection: OutputRejection): void {
    if (this.ended) return;
    this.bus.publish("agent_output_rejected", { sessionId: this.id, bytes: rejection.bytes, limit: rejection.limit, ...(rejection.method === null ? {} : { method: rejection.method }) }, this.promptFields);
  }

  onChannelDied(death: ChannelDeath): void {
    if (this.ended) return;
    this.hooks.onDied(this, death);
  }

  /**
   * Ends every prompt and pending permission, publishes the terminal event, ends the bus and
   * detaches from the runtime. Idempotent.
   */
  end(reason: EndReason, terminal: { type: "session_closed" | "session_died"; data: Record<string, unknown>; originatorClientId?: string }): void {
    if (this.ended) return;
    this.prompts.endAll(promptEnd(reason));
    this.permissions.cancelAll(reason === "channel_closed" ? "channel_closed" : "session_closed");
    this.ended = reason;
    this.endController.abort();
    this.bus.publish(terminal.type, { sessionId: this.id, ...terminal.data }, terminal.originatorClientId ? { originatorClientId: terminal.originatorClientId } : {});
    this.bus.close();
    this.runtime.unregister(this.agentSessionId);
  }

  /** Keeps the reported state current from the agent's own updates. */
  private track(update: Record<string, unknown>): void {
    switch (update.sessionUpdate) {
      case "available_commands_update":
        if (Array.isArray(update.availableCommands)) this.availableCommands = update.availableCommands;
        break;
      case "current_mode_update":
        if (this.state.modes && typeof this.state.modes === "object") this.state.modes = { ...(this.state.modes as object), currentModeId: update.currentModeId };
        break;
      case "config_option_update":
        if (Array.isArray(update.configOptions)) this.state.configOptions = update.configOptions;
        break;
      case "session_info_update":
        if (typeof update.title === "string" && this.metadata.titleSource !== "manual") {
          const title = titleFromAgent(update.title);
          if (title !== "") {
            this.metadata.displayName = title;
            this.metadata.titleSource = "agent";
            this.hooks.onMetadataChanged?.(this);
          }
        }
        break;
    }
  }
}

/**
 * The agent's update without the daemon's own prompt-echo mark (`_meta.source: "bridge-echo"`, see
 * prompt-queue.ts): only the daemon may claim a chunk is the user's prompt, since a seeded restore
 * turns exactly those chunks into "User:" lines (restore-seed.ts).
 */
function withoutEchoMark(update: acp.SessionUpdate): acp.SessionUpdate {
  const meta = (update as { _meta?: Record<string, unknown> | null })._meta;
  if (meta?.source !== "bridge-echo") return update;
  const { source: _claimed, ...rest } = meta;
  return { ...update, _meta: rest } as acp.SessionUpdate;
}

/**
 * An `available_commands_update` without `availableSkillDetails` in any of its `_meta` objects
 * (the notification's, the update's, each command's), as the reference daemon publishes it
 * (protocol-notes, addendum): Qwen Code 0.24.4 puts ~550 KB of skill bodies in the update's, once
 * per session, which every replay from the start and every ring and journal would otherwise carry;
 * the other places get the same treatment so no agent can carry them there instead. The rest of
 * each `_meta` (`availableSkills`, …) stays.
 */
function withoutSkillDetails(params: acp.SessionNotification): acp.SessionNotification {
  const { update } = params;
  if (update.sessionUpdate !== "available_commands_update") return params;
  const commands = Array.isArray(update.availableCommands) ? update.availableCommands.map((command) => withoutDetailsMeta(command)) : update.availableCommands;
  return withoutDetailsMeta({ ...params, update: withoutDetailsMeta({ ...update, availableCommands: commands }) });
}

/** `holder` without `_meta.availableSkillDetails` (the same object when it has none). */
function withoutDetailsMeta<T extends object>(holder: T): T {
  const meta = (holder as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== "object" || !Object.hasOwn(meta, "availableSkillDetails")) return holder;
  const { availableSkillDetails: _details, ...rest } = meta as Record<string, unknown>;
  return { ...holder, _meta: rest };
}
