/**
 * One workspace's agent runtime: at most one child process and ACP channel, shared by every session
 * of the workspace. Started on first need (concurrent starts coalesce onto one spawn), torn down as
 * a whole when the child exits: every registered session is told, and the next start spawns a
 * fresh child. Status reads never start it.
 *
 * A child the wedge rule judges unresponsive (`wedge-watch.ts`) is recycled: its sessions die with
 * reason `agent_unresponsive`, it gets the bounded stop sequence, the log says why, and the runtime
 * remembers it (`lastRecycle`) for `/daemon/status`. So does a child the stdin watchdog cut off.
 *
 * Its sessions' share of the traffic is `session-sinks.ts`'s, its MCP budget events
 * `mcp-budget-router.ts`'s.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { HandedProvider } from "../config/agent-keys.ts";
import type { AgentLaunch } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { AcpChannel, ChannelClosedError, type ChannelHandlers } from "./acp-channel.ts";
import { AgentProcess, type ExitInfo } from "./agent-process.ts";
import { authenticateIfNeeded, launchProfile, profileFor, SPAWN_ENV, type AgentProfile, type ExtensionPrefix } from "./agent-profile.ts";
import { mcpBudgetEnv, type McpBudget } from "./child-env.ts";
import { checkCliEntry, spawnFailure } from "./cli-entry.ts";
import { storedEndpoint } from "./stored-endpoint.ts";
import { McpBudgetRouter } from "./mcp-budget-router.ts";
import type { McpBudgetState } from "./mcp-budget-state.ts";
import type { OrphanReaper } from "./orphan-reaper.ts";
import { SessionSinks, type ChannelDeath, type SessionSink } from "./session-sinks.ts";
import type { WedgeVerdict } from "./wedge-watch.ts";
import { AgentStartError, ShuttingDownError, startFailure, type StartFailure } from "./start-failure.ts";

/** The last time a child of this runtime was recycled for not answering. */
export interface RuntimeRecycle {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly message: string;
}

export interface RuntimeDeps {
  readonly launch: AgentLaunch;
  readonly initTimeoutMs: number;
  readonly version: string;
  readonly logger: Logger;
  readonly reaper: OrphanReaper;
  /** Values scrubbed from the child's stderr (`stderr-secrets.ts`). */
  readonly secrets: readonly string[];
  /** The MCP client budget the child is started under (`child-env.ts`); absent: none. */
  readonly mcpBudget?: McpBudget;
  /** For the built-in agent: its key variables as of each start, handed over outside its environment (`agent-process.ts`). */
  readonly keyNames?: () => ReadonlySet<string>;
  /**
   * The providers set up through the API as of each start, most recent first (`src/auth/`): handed
   * to the built-in agent with its keys, or as a third-party agent's endpoint (`stored-endpoint.ts`).
   * A failure to read them starts the agent without them.
   */
  readonly storedProviders?: () => Promise<readonly HandedProvider[]>;
  /** Arguments appended to the child's at each spawn (asked then, so they say what holds at that moment). */
  readonly agentArgs?: () => readonly string[];
  /**
   * Run once `initialize` (and `authenticate`) succeeded, before any session can open on the
   * child; a rejection fails the start like an initialize error.
   */
  readonly onStarted?: (live: Live) => Promise<void>;
}

export interface Live {
  readonly child: AgentProcess;
  readonly channel: AcpChannel;
  readonly profile: AgentProfile;
  /** This child's channel id (a UUID), what a runtime stop's preview names. */
  readonly id: string;
  /** A session has opened on it: until then a channel that dies means the start failed. */
  opened: boolean;
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
  private readonly sinks: SessionSinks;
  /** Children being stopped on purpose: their channel closing is not a fault to SIGKILL them for. */
  private readonly retiring = new WeakSet<Live>();
  /** Children not yet exited and swept (a crashed one being swept, an idle one being retired): `stop()` waits for them. */
  private readonly unsettled = new Set<Promise<unknown>>();
  private stopped = false;
  /** Aborted by `stop()`: a start in progress gives up at once and stops its child. */
  private readonly shutdown = new AbortController();
  private failure: StartFailure | null = null;
  private readonly budget: McpBudgetRouter;
  private recycled: RuntimeRecycle | null = null;
  /** How many children have started (the runtime epoch a stop preview names). */
  private starts = 0;

  constructor(
    readonly cwd: string,
    private readonly deps: RuntimeDeps,
  ) {
    this.sinks = new SessionSinks(deps.logger);
    this.budget = new McpBudgetRouter(deps.mcpBudget, deps.logger);
  }

  /** The live child's MCP budget as its relayed events last reported it (null: nothing reported). */
  get mcpBudget(): McpBudgetState | null {
    return this.live === null ? null : this.budget.state;
  }

  /**
   * The extension prefix of the agent family this workspace runs: the live child's, else the
   * launched agent's (so an idle Qwen Code workspace's settings go to `.qwen`, which it reads).
   */
  get extensionPrefix(): ExtensionPrefix | null {
    return this.live?.profile.extensionPrefix ?? launchProfile(this.deps.launch.agent).extensionPrefix;
  }

  get channelLive(): boolean {
    return this.live !== null && this.live.channel.live;
  }

  get pid(): number | null {
    return this.live?.child.pid ?? null;
  }

  /** How many children have started so far; 0 while none ever has. */
  get epoch(): number {
    return this.starts;
  }

  get sessionCount(): number {
    return this.sinks.size;
  }

  /** A start of the agent is under way (spawned or spawning, `initialize` not yet answered). */
  get startInProgress(): boolean {
    return this.starting !== null;
  }

  /** The last recycle of an unresponsive child (kept for the daemon's life; status shows recent ones). */
  get lastRecycle(): RuntimeRecycle | null {
    return this.recycled;
  }

  /** Why the last start failed, until a start succeeds (the preflight `agent_start` cell). */
  get lastStartFailure(): StartFailure | null {
    return this.failure;
  }

  /** The live channel, starting the child if needed. Concurrent callers share one spawn. */
  async ensureStarted(): Promise<Live> {
    if (this.stopped) throw new ShuttingDownError();
    if (this.live) return this.live;
    this.starting ??= this.start()
      .then(
        (live) => {
          this.failure = null;
          return live;
        },
        (err: unknown) => {
          this.recordFailure(err);
          throw err;
        },
      )
      .finally(() => (this.starting = null));
    return await this.starting;
  }

  /**
   * A session failed to open on `live` with `err`. Before the first session ever opened, a closed
   * channel means the start failed: the child is stopped and the answer becomes
   * `agent_start_failed` with its exit code (recorded for preflight), like a child that died during
   * `initialize`. A timeout then is recorded too. Later failures pass through unchanged.
   */
  async sessionOpenFailed(live: Live, err: unknown): Promise<unknown> {
    if (live.opened) return err;
    if (err instanceof ChannelClosedError) err = await this.failedStart(live.child, err, "session/new");
    this.recordFailure(err);
    return err;
  }

  /** The first session opened on `live`: from now on its channel dying is no start failure. */
  sessionOpened(live: Live): void {
    live.opened = true;
  }

  /** The live channel if there is one; never starts a child. */
  current(): Live | null {
    return this.live;
  }

  /**
   * The live channel, or the one the start in progress gives (null when none is live or starting,
   * or that start fails); never starts a child. For a change the agent must be told of: an agent
   * starting may have read its settings before the change, and would miss it if skipped as not live.
   */
  async settled(): Promise<Live | null> {
    if (this.live) return this.live;
    return this.starting === null ? null : await this.starting.catch(() => null);
  }

  /**
   * Routes the traffic of the agent's session `sessionId` (the id the agent uses, which the sink
   * maps to its own) to `sink`, first replaying anything that arrived before it.
   */
  register(sessionId: string, sink: SessionSink): void {
    this.sinks.register(sessionId, sink);
  }

  /** Whether the agent's session `sessionId` has a sink. */
  routes(sessionId: string): boolean {
    return this.sinks.has(sessionId);
  }

  unregister(sessionId: string): void {
    this.sinks.delete(sessionId);
    this.budget.forget(sessionId);
  }

  /** Stops the child (bounded) and tells every session; resolves once every child of this runtime is stopped and swept. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    // A start in progress is abandoned: its `initialize` stops waiting and its child is killed.
    this.shutdown.abort();
    const live = this.live;
    if (live) {
      this.teardown(live, { reason: "daemon_shutdown", exitCode: null, signalCode: null });
      void this.retire(live, "daemon shutdown", true);
    }
    await this.starting?.catch(() => null);
    await Promise.all(this.unsettled);
  }

  /**
   * Kills the live child at once (its group, then its family swept), for a child that must not go
   * on (it did not take a trust revocation): every session on it is told the channel died, and the
   * next session starts a fresh child.
   */
  kill(reason: string): void {
    const live = this.live;
    if (!live) return;
    this.deps.logger.warn("agent stopped", { pid: live.child.pid, reason });
    live.child.kill();
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
  private async retire(live: Live, reason: string, shuttingDown = false): Promise<void> {
    this.retiring.add(live);
    await live.child.stop(shuttingDown);
    live.channel.close(reason);
  }

  /** Remembers a failed start for preflight; a start abandoned for the daemon's shutdown is no failure. */
  private recordFailure(err: unknown): void {
    if (err instanceof DaemonError && !(err instanceof ShuttingDownError)) this.failure = startFailure(err, new Date());
  }

  /** The stored providers for a start; none when there are none or they cannot be read. */
  private async storedProviders(): Promise<readonly HandedProvider[]> {
    try {
      return (await this.deps.storedProviders?.()) ?? [];
    } catch (err) {
      this.deps.logger.warn("stored model providers unavailable; the agent starts without them", { reason: (err as Error).message });
      return [];
    }
  }

  private async start(): Promise<Live> {
    const { deps } = this;
    checkCliEntry(deps.launch); // MissingCliEntryError before anything is spawned
    // The launched agent's profile adds its own variables and points it at the configured model endpoint, if any.
    const { facts } = launchProfile(deps.launch.agent);
    const stored = await this.storedProviders();
    if (this.stopped) throw new ShuttingDownError();
    const builtin = deps.keyNames !== undefined;
    const endpoint = deps.launch.modelEndpoint ?? (builtin ? null : storedEndpoint(deps.launch.agent, stored));
    // The stored keys are replaced in whatever the child writes, like the configured ones.
    const secrets = [...deps.secrets, ...stored.map((p) => p.apiKey).filter((k) => k !== "")];
    const extraEnv = {
      ...SPAWN_ENV,
      ...facts.spawnEnv(deps.launch.baseEnv),
      ...(endpoint ? facts.modelEndpointEnv(endpoint) : {}),
      ...(deps.mcpBudget ? mcpBudgetEnv(deps.mcpBudget) : {}),
    };
    let child: AgentProcess;
    try {
      child = new AgentProcess({
        launch: deps.launch,
        cwd: this.cwd,
        extraEnv,
        extraArgs: deps.agentArgs?.() ?? [],
        logger: deps.logger,
        reaper: deps.reaper,
        secrets,
        keyNames: deps.keyNames?.(),
        ...(builtin ? { providers: stored } : {}),
      });
    } catch (err) {
      throw spawnFailure(deps.launch, err);
    }
    this.unsettled.add(child.settled);
    void child.settled.then(() => this.unsettled.delete(child.settled));
    const handlers: ChannelHandlers = {
      onSessionUpdate: (params) => this.sinks.route(params),
      onPermissionRequest: async (params, signal) => (await this.sinks.get(params.sessionId)?.onPermission(params, signal)) ?? CANCELLED,
      onExtNotification: (method, params) => this.extNotification(method, params),
      onOutputRejected: (rejection) => this.sinks.get(rejection.sessionId)?.onOutputRejected?.(rejection),
      onBeforeWrite: async (sessionId, path) => (await this.sinks.get(sessionId)?.onBeforeWrite?.(path)) ?? false,
    };
    let live: Live | undefined;
    try {
      const channel = await AcpChannel.open(child, handlers, {
        initTimeoutMs: deps.initTimeoutMs,
        clientVersion: deps.version,
        logger: deps.logger,
        secrets,
        signal: this.shutdown.signal,
        // Before the start completes, a start step's own timeout ends it.
        onUnresponsive: (verdict) => {
          if (live) this.recycleUnresponsive(live, verdict);
        },
      });
      // A shutdown that began as `initialize` was answered abandons the start all the same.
      if (this.stopped) {
        channel.close("daemon shutdown");
        throw new ShuttingDownError();
      }
      const profile = profileFor(channel.agentName, deps.launch.agent);
      if (await authenticateIfNeeded(channel, profile, { ...deps.launch.baseEnv, ...extraEnv }, deps.initTimeoutMs)) deps.logger.info("agent authenticated", { pid: child.pid, methodId: profile.facts.authenticate?.methodId });
      live = { child, channel, profile, id: crypto.randomUUID(), opened: false };
      await deps.onStarted?.(live);
      this.budget.reset();
    } catch (err) {
      throw await this.failedStart(child, err, "channel.initialize");
    }
    const started = live;
    const { channel } = started;
    this.live = started;
    this.starts++;
    deps.logger.info("agent ready", { pid: child.pid, agent: channel.agentName || "unknown", profile: started.profile.name });
    void Promise.race([child.exited, channel.closed.then(() => null)]).then(async (exit: ExitInfo | null) => {
      // A channel that broke while the process lives (a flood of garbage) ends the process too; a
      // child being stopped on purpose gets the bounded stop sequence instead.
      if (exit === null && !this.retiring.has(started)) child.kill();
      const info = exit ?? (await child.exited);
      if (this.live !== started) return;
      const cutOff = channel.cutOff;
      if (cutOff?.reason === "agent_unresponsive") this.recycled = { at: Date.now(), message: cutOff.message };
      this.teardown(started, { reason: cutOff?.reason ?? "channel_closed", exitCode: info.exitCode, signalCode: info.signalCode, ...(cutOff ? { message: cutOff.message } : {}) });
    });
    return started;
  }

  /**
   * The wedge rule's verdict on the live child: its sessions die (`agent_unresponsive`), it is
   * stopped with the bounded stop sequence, and the next session starts a fresh one.
   */
  private recycleUnresponsive(live: Live, verdict: WedgeVerdict): void {
    if (this.live !== live || this.retiring.has(live)) return;
    const message = `the agent stopped answering: ${verdict.timeouts} requests in a row timed out (${verdict.methods.join(", ")}) and nothing came from it for ${Math.round(verdict.silentMs / 1000)} s; it was restarted`;
    this.recycled = { at: Date.now(), message };
    this.deps.logger.warn("agent unresponsive; recycling it", { pid: live.child.pid, timeouts: verdict.timeouts, methods: verdict.methods.join(","), silentMs: verdict.silentMs, sessions: this.sinks.size });
    this.teardown(live, { reason: "agent_unresponsive", exitCode: null, signalCode: null, message });
    void this.retire(live, "agent unresponsive");
  }

  /**
   * Stops a child whose start failed (`AgentProcess.kill`: its group at once, its family swept once
   * it has exited; on every failure, whatever it was) and returns what the start answers: a closed
   * channel means the child is gone or going, so it becomes `agent_start_failed` with the exit code
   * or signal, or with the stdout rule it broke when the daemon cut it off; any other DaemonError
   * (a timeout, an error answer, an invalid result, the daemon's shutdown) is passed on.
   */
  private async failedStart(child: AgentProcess, err: unknown, phase: "channel.initialize" | "session/new"): Promise<unknown> {
    const closed = err instanceof ChannelClosedError;
    // The daemon's shutdown has no time to spare for a child's exit code.
    const exit = closed && !this.stopped ? await child.exitedWithin(START_EXIT_WAIT_MS) : null;
    child.kill();
    await child.exited;
    if (this.stopped) return new ShuttingDownError();
    if (!closed) return err;
    this.deps.logger.warn("agent failed to start", { pid: child.pid, phase, exitCode: exit?.exitCode, signal: exit?.signalCode });
    return err.outputRejected !== null ? AgentStartError.outputRejected(err.outputRejected, exit, phase) : AgentStartError.exited(exit, phase);
  }

  /** An agent extension notification: the live profile's MCP budget event goes to `McpBudgetRouter`; others are logged. */
  private extNotification(method: string, params: unknown): void {
    if (this.budget.handles(method, this.live?.profile.extensionPrefix)) this.budget.notify(method, params, (sessionId) => this.sinks.get(sessionId));
    else this.deps.logger.debug("agent notification", { method });
  }

  private teardown(live: Live, death: ChannelDeath): void {
    if (this.live === live) this.live = null;
    this.sinks.endAll(death);
  }
}
