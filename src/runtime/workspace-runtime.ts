/**
 * One workspace's agent runtime: at most one child process and ACP channel, shared by every session
 * of the workspace. Started on first need (concurrent starts coalesce onto one spawn), torn down as
 * a whole when the child exits: every registered session is told, and the next start spawns a
 * fresh child. Status reads never start it.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentLaunch } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { AcpChannel, ChannelClosedError, type ChannelHandlers } from "./acp-channel.ts";
import { AgentProcess, type ExitInfo } from "./agent-process.ts";
import { profileFor, SPAWN_ENV, type AgentProfile } from "./agent-profile.ts";
import { checkCliEntry } from "./cli-entry.ts";
import { EarlyUpdates } from "./early-updates.ts";
import type { OrphanReaper } from "./orphan-reaper.ts";
import { AgentStartError, startFailure, type StartFailure } from "./start-failure.ts";

/** What a session hands the runtime to receive its share of the channel's traffic. */
export interface SessionSink {
  onUpdate(params: acp.SessionNotification): void;
  onPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** The child exited or the channel broke; the session is gone. */
  onChannelDied(info: ChannelDeath): void;
}

export interface ChannelDeath {
  readonly reason: "channel_closed" | "daemon_shutdown";
  readonly exitCode: number | null;
  readonly signalCode: string | null;
}

export interface RuntimeDeps {
  readonly launch: AgentLaunch;
  readonly initTimeoutMs: number;
  readonly version: string;
  readonly logger: Logger;
  readonly reaper: OrphanReaper;
  /** Values scrubbed from the child's stderr (`stderr-secrets.ts`). */
  readonly secrets: readonly string[];
}

interface Live {
  readonly child: AgentProcess;
  readonly channel: AcpChannel;
  readonly profile: AgentProfile;
}

const CANCELLED: acp.RequestPermissionResponse = { outcome: { outcome: "cancelled" } };
/**
 * How long a child whose channel closed during `initialize` is given to exit by itself, so the
 * answer can give its exit code or signal; one still running then is killed.
 */
const START_EXIT_WAIT_MS = 1000;

export class WorkspaceRuntime {
  private live: Live | null = null;
  private starting: Promise<Live> | null = null;
  private readonly sinks = new Map<string, SessionSink>();
  /** Updates for sessions not registered yet (bounded; see `early-updates.ts`). */
  private readonly early: EarlyUpdates;
  /** Children being stopped on purpose: their channel closing is not a fault to SIGKILL them for. */
  private readonly retiring = new WeakSet<Live>();
  /** Children not yet exited and swept (a crashed one being swept, an idle one being retired): `stop()` waits for them. */
  private readonly unsettled = new Set<Promise<unknown>>();
  private stopped = false;
  private failure: StartFailure | null = null;

  constructor(
    readonly cwd: string,
    private readonly deps: RuntimeDeps,
  ) {
    this.early = new EarlyUpdates((sessionId, reason, bytes) => deps.logger.debug("update for an unregistered session dropped", { sessionId, reason, bytes }));
  }

  get channelLive(): boolean {
    return this.live !== null && this.live.channel.live;
  }

  get pid(): number | null {
    return this.live?.child.pid ?? null;
  }

  get sessionCount(): number {
    return this.sinks.size;
  }

  /** Why the last start failed, until a start succeeds (the preflight `agent_start` cell). */
  get lastStartFailure(): StartFailure | null {
    return this.failure;
  }

  /** The live channel, starting the child if needed. Concurrent callers share one spawn. */
  async ensureStarted(): Promise<Live> {
    if (this.stopped) throw new Error("runtime stopped");
    if (this.live) return this.live;
    this.starting ??= this.start()
      .then(
        (live) => {
          this.failure = null;
          return live;
        },
        (err: unknown) => {
          if (err instanceof DaemonError) this.failure = startFailure(err, new Date());
          throw err;
        },
      )
      .finally(() => (this.starting = null));
    return await this.starting;
  }

  /** The live channel if there is one; never starts a child. */
  current(): Live | null {
    return this.live;
  }

  /** Routes the session's traffic to `sink`, first replaying anything that arrived before it. */
  register(sessionId: string, sink: SessionSink): void {
    this.sinks.set(sessionId, sink);
    for (const update of this.early.take(sessionId)) sink.onUpdate(update);
  }

  unregister(sessionId: string): void {
    this.sinks.delete(sessionId);
  }

  /** Stops the child (bounded) and tells every session; resolves once every child of this runtime is stopped and swept. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    const live = this.live ?? (await this.starting?.catch(() => null)) ?? null;
    if (live) {
      this.teardown(live, { reason: "daemon_shutdown", exitCode: null, signalCode: null });
      void this.retire(live, "daemon shutdown");
    }
    await Promise.all(this.unsettled);
  }

  /** Stops an idle child (no sessions) so the next session starts a fresh one. */
  async stopIfIdle(): Promise<void> {
    const live = this.live;
    if (!live || this.sinks.size > 0) return;
    this.live = null;
    await this.retire(live, "idle");
  }

  /**
   * Planned stop: the child's stdout is read until it exits (a child flushing at shutdown must not
   * hit a closed pipe); only then is the channel closed.
   */
  private async retire(live: Live, reason: string): Promise<void> {
    this.retiring.add(live);
    await live.child.stop();
    live.channel.close(reason);
  }

  private async start(): Promise<Live> {
    const { deps } = this;
    checkCliEntry(deps.launch); // MissingCliEntryError before anything is spawned
    const child = new AgentProcess({ launch: deps.launch, cwd: this.cwd, extraEnv: SPAWN_ENV, logger: deps.logger, reaper: deps.reaper, secrets: deps.secrets });
    this.unsettled.add(child.settled);
    void child.settled.then(() => this.unsettled.delete(child.settled));
    const handlers: ChannelHandlers = {
      onSessionUpdate: (params) => this.route(params),
      onPermissionRequest: async (params, signal) => (await this.sinks.get(params.sessionId)?.onPermission(params, signal)) ?? CANCELLED,
      onExtNotification: (method) => deps.logger.debug("agent notification", { method }),
    };
    let channel: AcpChannel;
    try {
      channel = await AcpChannel.open(child, handlers, { initTimeoutMs: deps.initTimeoutMs, clientVersion: deps.version, logger: deps.logger });
    } catch (err) {
      throw await this.failedStart(child, err);
    }
    const live: Live = { child, channel, profile: profileFor(channel.agentName) };
    if (this.stopped) {
      channel.close("daemon shutdown");
      await child.stop();
      throw new Error("runtime stopped");
    }
    this.live = live;
    deps.logger.info("agent ready", { pid: child.pid, agent: channel.agentName || "unknown", profile: live.profile.name });
    void Promise.race([child.exited, channel.closed.then(() => null)]).then(async (exit: ExitInfo | null) => {
      // A channel that broke while the process lives (garbage, oversized message) ends the process
      // too; a child being stopped on purpose gets the bounded stop sequence instead.
      if (exit === null && !this.retiring.has(live)) child.kill();
      const info = exit ?? (await child.exited);
      if (this.live === live) this.teardown(live, { reason: "channel_closed", exitCode: info.exitCode, signalCode: info.signalCode });
    });
    return live;
  }

  /**
   * Stops a child whose `initialize` failed (`AgentProcess.kill`: its group at once, its family
   * swept once it has exited) and returns what the start answers: a closed channel means the child is gone or going,
   * so it becomes `agent_start_failed` with the exit code or signal; a timeout or an agent's error
   * answer is passed on.
   */
  private async failedStart(child: AgentProcess, err: unknown): Promise<unknown> {
    const exit = err instanceof ChannelClosedError ? await child.exitedWithin(START_EXIT_WAIT_MS) : null;
    child.kill();
    await child.exited;
    if (!(err instanceof ChannelClosedError)) return err;
    this.deps.logger.warn("agent failed to start", { pid: child.pid, exitCode: exit?.exitCode, signal: exit?.signalCode });
    return new AgentStartError(exit);
  }

  private route(params: acp.SessionNotification): void {
    const sink = this.sinks.get(params.sessionId);
    if (sink) sink.onUpdate(params);
    else this.early.hold(params);
  }

  private teardown(live: Live, death: ChannelDeath): void {
    this.early.clear();
    if (this.live === live) this.live = null;
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const sink of sinks) {
      try {
        sink.onChannelDied(death);
      } catch (err) {
        this.deps.logger.error("session teardown failed", { error: String(err) });
      }
    }
  }
}
