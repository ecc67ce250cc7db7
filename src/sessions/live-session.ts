/**
 * A live session: its event bus, registered clients, the model/mode/config state the agent
 * reported, metadata, and activity clocks. It receives its share of the agent channel's traffic
 * (updates, permission requests, channel death) as the runtime's SessionSink.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { EventBus } from "../events/event-bus.ts";
import type { EnvelopeFields } from "../events/frame.ts";
import type { ChannelDeath, SessionSink, WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import { ClientRegistry } from "./client-ids.ts";

/** SSE subscribers per session; past it subscribing answers 429. */
export const MAX_SUBSCRIBERS_PER_SESSION = 1024;
/** `displayName` length cap in UTF-16 units; longer names are truncated. */
export const MAX_DISPLAY_NAME = 256;

export interface SessionState {
  models?: unknown;
  modes?: unknown;
  configOptions?: unknown;
}

export interface SessionMetadata {
  displayName?: string;
  titleSource?: "manual" | "agent";
  prs?: { number: number; url: string; state?: string }[];
}

export type EndReason = "client_close" | "idle_timeout" | "channel_closed" | "daemon_shutdown";

export interface SessionHooks {
  /** The agent asks for a tool confirmation (the permission mediator answers). */
  onPermission(session: LiveSession, params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** The session ended from the runtime side (child exit); the manager forgets it. */
  onDied(session: LiveSession, death: ChannelDeath): void;
}

export class LiveSession implements SessionSink {
  readonly bus: EventBus;
  readonly clients = new ClientRegistry();
  readonly createdAt: number;
  lastSeenAt: number;
  readonly state: SessionState;
  availableCommands: unknown[] | null = null;
  readonly metadata: SessionMetadata = {};
  /** Fields stamped on events published while a prompt runs (its id and originator). */
  promptFields: EnvelopeFields = {};
  private ended: EndReason | null = null;

  constructor(
    readonly id: string,
    readonly runtime: WorkspaceRuntime,
    state: SessionState,
    private readonly hooks: SessionHooks,
    options: { ringSize: number; now: number },
  ) {
    this.createdAt = options.now;
    this.lastSeenAt = options.now;
    this.state = { models: state.models, modes: state.modes, configOptions: state.configOptions };
    this.bus = new EventBus({ ringSize: options.ringSize, maxSubscribers: MAX_SUBSCRIBERS_PER_SESSION });
  }

  get workspaceCwd(): string {
    return this.runtime.cwd;
  }

  get isEnded(): boolean {
    return this.ended !== null;
  }

  publish(type: string, data: unknown, fields?: EnvelopeFields): void {
    this.bus.publish(type, data, fields);
  }

  onUpdate(params: acp.SessionNotification): void {
    if (this.ended) return;
    this.track(params.update as unknown as Record<string, unknown>);
    this.bus.publish("session_update", params, this.promptFields);
  }

  onPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    return this.hooks.onPermission(this, params, signal);
  }

  onChannelDied(death: ChannelDeath): void {
    if (this.ended) return;
    this.hooks.onDied(this, death);
  }

  /** Publishes the terminal event, ends the bus and detaches from the runtime. Idempotent. */
  end(reason: EndReason, terminal: { type: "session_closed" | "session_died"; data: Record<string, unknown>; originatorClientId?: string }): void {
    if (this.ended) return;
    this.ended = reason;
    this.bus.publish(terminal.type, { sessionId: this.id, ...terminal.data }, terminal.originatorClientId ? { originatorClientId: terminal.originatorClientId } : {});
    this.bus.close();
    this.runtime.unregister(this.id);
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
          this.metadata.displayName = update.title.slice(0, MAX_DISPLAY_NAME);
          this.metadata.titleSource = "agent";
        }
        break;
    }
  }
}
