/**
 * A runtime's sessions as its channel sees them: one sink per agent session id, which receives that
 * session's share of the traffic, and the updates that came for an id before its sink registered
 * (bounded; see `early-updates.ts`). When the child goes, every sink is told once and forgotten.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Logger } from "../logging/logger.ts";
import { EarlyUpdates } from "./early-updates.ts";
import type { McpBudgetEventType } from "./mcp-budget-event.ts";
import type { OutputRejection } from "./output-rejection.ts";

/** What a session hands the runtime to receive its share of the channel's traffic. */
export interface SessionSink {
  onUpdate(params: acp.SessionNotification): void;
  onPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** The child exited or the channel broke; the session is gone. */
  onChannelDied(info: ChannelDeath): void;
  /** An event the agent reported for the session outside `session/update` (a sink that publishes nothing may omit it). */
  onAgentEvent?(type: McpBudgetEventType, data: Record<string, unknown>): void;
  /** A message the agent wrote for the session was over the channel's line bound and dropped (see `output-rejection.ts`). */
  onOutputRejected?(rejection: OutputRejection): void;
  /** The agent is about to write `path` in the session's running turn (checkpoints); true when its content was kept. */
  onBeforeWrite?(path: string): Promise<boolean>;
}

export interface ChannelDeath {
  /** `output_rejected`: the daemon cut the child off for its stdout; `agent_unresponsive`: it stopped answering or reading. */
  readonly reason: "channel_closed" | "daemon_shutdown" | "output_rejected" | "agent_unresponsive";
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  /** What happened, when the daemon ended the child for a reason of its own. */
  readonly message?: string;
}

export class SessionSinks {
  private readonly sinks = new Map<string, SessionSink>();
  /** Updates for sessions not registered yet. */
  private readonly early: EarlyUpdates;

  constructor(private readonly logger: Logger) {
    this.early = new EarlyUpdates((sessionId, reason, bytes) => logger.debug("update for an unregistered session dropped", { sessionId, reason, bytes }));
  }

  get size(): number {
    return this.sinks.size;
  }

  /** Routes `sessionId`'s traffic to `sink`, first replaying anything that arrived before it. */
  register(sessionId: string, sink: SessionSink): void {
    this.sinks.set(sessionId, sink);
    for (const update of this.early.take(sessionId)) sink.onUpdate(update);
  }

  has(sessionId: string): boolean {
    return this.sinks.has(sessionId);
  }

  get(sessionId: string): SessionSink | undefined {
    return this.sinks.get(sessionId);
  }

  delete(sessionId: string): void {
    this.sinks.delete(sessionId);
  }

  /** A `session/update`: to its sink, or held until one registers. */
  route(params: acp.SessionNotification): void {
    const sink = this.sinks.get(params.sessionId);
    if (sink) sink.onUpdate(params);
    else this.early.hold(params);
  }

  /** The child is gone: every sink is told `death` once (a sink that throws does not stop the rest) and forgotten, with whatever was held. */
  endAll(death: ChannelDeath): void {
    this.early.clear();
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const sink of sinks) {
      try {
        sink.onChannelDied(death);
      } catch (err) {
        this.logger.error("session teardown failed", { error: String(err) });
      }
    }
  }
}
