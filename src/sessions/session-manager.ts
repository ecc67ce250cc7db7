/**
 * Live sessions of the daemon: create (scope `single` attaches to the workspace's default session,
 * `thread` always makes a new one; concurrent creates coalesce onto one spawn), caps, close, death
 * with the child, heartbeats, the idle reaper (which also expires idle client ids: they live as long
 * as a session may idle, `--session-idle-timeout-ms`), and stopping a child left without sessions.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import type { ChannelDeath } from "../runtime/session-sinks.ts";
import type { Live, WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import type { CatalogRow } from "../store/catalog.ts";
import type { Store } from "../store/store.ts";
import { AutoTitler } from "./auto-title.ts";
import type { CheckpointSeam } from "./checkpoint-seam.ts";
import { LiveSession, type BranchLink, type EndReason, type SessionHooks, type SessionState } from "./live-session.ts";
import { applyModel, checkStartupConfig, type StartupConfig } from "./model-selection.ts";
import { restoreInProgress } from "./restore-in-progress.ts";
import { branchAncestry } from "./branch-ancestry.ts";
import { restoreSeed } from "./restore-seed.ts";
import { ShuttingDownError } from "../runtime/start-failure.ts";
import { workspaceId } from "../workspace/workspace-id.ts";
import { runtimeUnavailable, untrustedWorkspace, type RuntimeRegistry } from "./runtime-registry.ts";
import { relayRecordingState, sessionJournal } from "./session-recorder.ts";
import { parseSessionSource, sourceFields, type SessionSource } from "./session-source.ts";
import { attachAnswer, welcome, type CreateRequest, type CreateResult } from "./session-creation.ts";
import { parentFields } from "./session-summary.ts";
import { parseWorktree, worktreeText, WorktreeSeam, type WorktreeInfo } from "./worktree-seam.ts";
import { RuntimeSlots } from "./runtime-slots.ts";
import { restoreConflict, sessionNotFound } from "./session-errors.ts";
import { forkOnAgent, openOnAgent, reloadOnAgent } from "./agent-session-calls.ts";

export interface ManagerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly runtimes: RuntimeRegistry;
  /** Catalog and journal (none: sessions are neither listed after they end nor recorded). */
  readonly store?: Store;
  readonly now?: () => number;
  /** File snapshots of the sessions' turns, for rewind (none: turns are not snapshotted). */
  readonly checkpoints?: CheckpointSeam;
}

export class SessionManager {
  private readonly sessions = new Map<string, LiveSession>();
  /** Ids `reopen` is bringing back (see `isRestoring`). */
  private readonly reopening = new Set<string>();
  /** The `single`-scope session of each workspace. */
  private readonly defaults = new Map<string, string>();
  /** A default session being created, shared by concurrent `single` creates. */
  private readonly pendingDefaults = new Map<string, Promise<LiveSession>>();
  /** Creations in flight (counted against the caps) and the idle children's pending stops. */
  private readonly slots: RuntimeSlots;
  private reaper: Timer | null = null;
  /** The daemon is shutting down (`shutdown()`): starts it abandons are its, not their workspace's. */
  private closing = false;
  private readonly now: () => number;
  private readonly hooks: SessionHooks;
  /** The workspaces' session worktrees (loaded on the first worktree session). */
  readonly worktrees: WorktreeSeam;

  /** The checkpoints the sessions' turns feed (rewind, `/daemon/status`); null when not kept. */
  get checkpoints(): CheckpointSeam | null {
    return this.deps.checkpoints ?? null;
  }

  constructor(private readonly deps: ManagerDeps) {
    this.now = deps.now ?? Date.now;
    this.slots = new RuntimeSlots(deps.config.limits, () => this.sessions.size);
    this.worktrees = new WorktreeSeam(deps.config.agent.baseEnv);
    const titler = new AutoTitler(deps.config.settings.autoTitle, deps.store ?? null, deps.logger);
    this.hooks = {
      onDied: (s, death) => this.died(s, death),
      onMetadataChanged: (s) => deps.store?.metadataChanged(s.id, s.metadata.displayName ?? null, { ...s.metadata }),
      onTurnComplete: (s) => titler.turnCompleted(s),
    };
    if (deps.store) relayRecordingState(deps.store, deps.logger, () => this.sessions.values());
  }

  /** The catalog and journal, when the daemon has them. */
  get store(): Store | null {
    return this.deps.store ?? null;
  }

  get count(): number {
    return this.sessions.size;
  }

  all(): IterableIterator<LiveSession> {
    return this.sessions.values();
  }

  /** The live session, or null. */
  peek(sessionId: string): LiveSession | null {
    return this.sessions.get(sessionId) ?? null;
  }

  /**
   * The live session for a route of its own (scope `live-session-owner`): 404 `session_not_found`
   * (`restorable: true` when a load would bring it back, see `restorable`); 503
   * `workspace_runtime_unavailable` while its workspace is being removed or its runtime stopped; 403
   * `untrusted_workspace` when its workspace is a registered one the user does not trust (the
   * primary is exempt). The owner is the session's own runtime: a map lookup, never a search.
   */
  get(sessionId: string): LiveSession {
    const session = this.found(sessionId);
    const owner = this.deps.runtimes.scopeOf(session.runtime);
    if (owner?.draining) throw runtimeUnavailable(owner);
    if (owner && !owner.primary && !owner.trust.trusted) throw untrustedWorkspace(owner, session.id);
    return session;
  }

  /** The live session whatever its workspace's state, or 404 `session_not_found`. */
  private found(sessionId: string): LiveSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId, this.restorable(sessionId));
    return session;
  }

  /** The live sessions of one workspace runtime. */
  sessionsOf(runtime: WorkspaceRuntime): LiveSession[] {
    return [...this.sessions.values()].filter((s) => s.runtime === runtime);
  }

  /** Sessions of `runtime` being created or restored now. */
  pendingStarts(runtime: WorkspaceRuntime): number {
    return this.slots.pending(runtime);
  }

  /**
   * Closes every live session of `runtime` (a workspace removed or its runtime stopped), one after
   * the other; each stays persisted and restorable. Returns the ids closed, in order.
   */
  async closeAll(runtime: WorkspaceRuntime, reason: "workspace_removed" | "workspace_runtime_stop"): Promise<string[]> {
    const closed: string[] = [];
    for (const session of this.sessionsOf(runtime)) {
      if (!this.sessions.has(session.id)) continue;
      await this.close(session.id, reason);
      closed.push(session.id);
    }
    return closed;
  }

  /**
   * The catalog row of a session that is not live, when a load can restore it: the catalog holds
   * it (a deleted one is gone from it) and it is not archived (a load refuses that with 409 until
   * it is unarchived); else null. A catalog that cannot be read answers for itself: its 503
   * `store_unavailable` goes out instead of a 404 that would claim the session does not exist.
   */
  private restorable(sessionId: string): CatalogRow | null {
    const row = this.deps.store?.session(sessionId) ?? null;
    return row !== null && !row.archived ? row : null;
  }

  async create(request: CreateRequest, clientHeader: string | null): Promise<CreateResult> {
    const runtime = this.deps.runtimes.forCwd(request.cwd);
    const scope = request.sessionScope ?? (request.startupConfig === undefined ? "single" : "thread");
    const startup = request.startupConfig === undefined ? null : checkStartupConfig(request.startupConfig, request);
    const source = parseSessionSource(request.sourceType, request.sourceId, true);

    if (request.worktree !== undefined) return await this.inWorktree(runtime, request.worktree.slug, request.modelServiceId, startup, source);
    if (scope === "thread") return await this.fresh(runtime, request.modelServiceId, startup, source);

    const existing = this.defaultOf(runtime);
    if (existing) return await attachAnswer(existing, clientHeader, request.modelServiceId);
    const pending = this.pendingDefaults.get(runtime.cwd);
    if (pending) return await attachAnswer(await pending, clientHeader, request.modelServiceId);

    const creation = this.spawn(runtime, source);
    this.pendingDefaults.set(runtime.cwd, creation);
    let session: LiveSession;
    try {
      session = await creation;
    } finally {
      this.pendingDefaults.delete(runtime.cwd);
    }
    this.defaults.set(runtime.cwd, session.id);
    return await welcome(session, this.deps.store?.storesCatalogChanges ?? false, request.modelServiceId, null);
  }

  /** The live session a client may close: 409 `restore_in_progress` while it is being restored (the restore would bring it back). */
  closable(sessionId: string): LiveSession {
    if (this.reopening.has(sessionId) && !this.sessions.has(sessionId))
      throw restoreInProgress(`Session ${sessionId} is being restored; retry shortly`, { sessionId });
    return this.get(sessionId);
  }

  /** Closes a live session (DELETE, idle reaper, shutdown). */
  async close(sessionId: string, reason: EndReason, closedBy?: string): Promise<void> {
    const session = this.found(sessionId);
    const hadRunningPrompt = session.prompts.running !== null;
    this.forget(session);
    // Only a client's close is "closed" for good; one the daemon made (the idle reaper, while no
    // client was there to see it) leaves the session restorable, as a shutdown does.
    this.deps.store?.sessionEnded(session.id, reason === "client_close" || reason === "worktree_reset" ? "closed" : "restorable");
    session.end(reason, { type: "session_closed", data: { reason, ...(closedBy ? { closedBy } : {}) }, originatorClientId: closedBy });
    const live = session.runtime.current();
    if (live) {
      try {
        if (hadRunningPrompt) await live.profile.cancelPrompt(live.channel, session.agentSessionId);
        await live.profile.closeSession(live.channel, session.agentSessionId);
      } catch (err) {
        this.deps.logger.warn("agent did not close the session cleanly", { sessionId, error: err instanceof Error ? err.message : String(err) });
      }
    }
    this.slots.release(session.runtime);
  }

  /** Records a heartbeat; returns what the route answers. */
  heartbeat(sessionId: string, clientId: string | null): { sessionId: string; clientId?: string; lastSeenAt: number } {
    const session = this.get(sessionId);
    session.clients.use(clientId);
    session.noteActivity();
    const lastSeenAt = session.lastSeenAt;
    return clientId === null ? { sessionId, lastSeenAt } : { sessionId, clientId, lastSeenAt };
  }

  /**
   * A client leaves (`POST /session/:id/detach`): its id is released (`ClientRegistry.release`),
   * and a session left with no registered client, no event stream and no running work, queued
   * prompt or pending permission is closed (`last_client_detached`), as the reference does. An
   * unknown or ended session has nothing to release: leaving it is done already.
   */
  async detach(sessionId: string, clientId: string | null): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    if (clientId !== null) session.clients.release(clientId);
    session.sweepClients();
    if (session.clients.size > 0 || session.bus.subscriberCount > 0 || session.busy || this.reopening.has(sessionId)) return;
    await this.close(sessionId, "last_client_detached");
  }

  /** Starts the idle reaper (`--session-idle-timeout-ms`, 0 disables it). */
  startReaper(): void {
    const { sessionIdleTimeoutMs, sessionReapIntervalMs } = this.deps.config.limits;
    if (sessionIdleTimeoutMs === 0 || this.reaper) return;
    this.reaper = setInterval(() => this.reapIdle(), Math.min(sessionReapIntervalMs, sessionIdleTimeoutMs));
    this.reaper.unref();
  }

  /** Expires idle client ids, and closes sessions idle past the timeout with no subscriber and no running work. */
  reapIdle(): void {
    const cutoff = this.now() - this.deps.config.limits.sessionIdleTimeoutMs;
    for (const session of [...this.sessions.values()]) {
      session.sweepClients();
      if (session.lastSeenAt > cutoff || session.bus.subscriberCount > 0 || session.busy) continue;
      this.deps.logger.info("reaping idle session", { sessionId: session.id });
      void this.close(session.id, "idle_timeout").catch(() => {});
    }
  }

  /** Ends every session (daemon shutdown); the runtimes are stopped by their registry. */
  shutdown(): void {
    this.closing = true;
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = null;
    this.slots.clear();
    for (const session of [...this.sessions.values()]) {
      this.forget(session);
      this.deps.store?.sessionEnded(session.id, "restorable");
      session.end("daemon_shutdown", { type: "session_died", data: { reason: "daemon_shutdown" } });
    }
  }

  private defaultOf(runtime: WorkspaceRuntime): LiveSession | null {
    const id = this.defaults.get(runtime.cwd);
    return id === undefined ? null : (this.sessions.get(id) ?? null);
  }

  /**
   * A new session in a fresh worktree of `runtime`'s workspace (always a new thread). The caps are
   * checked before anything is checked out; a session that fails to start takes its worktree with it.
   */
  private async inWorktree(runtime: WorkspaceRuntime, slug: string | undefined, modelServiceId: string | undefined, startup: StartupConfig | null, source: SessionSource | null) {
    this.slots.checkCaps(runtime);
    const worktree = await this.worktrees.create(runtime.cwd, slug);
    try {
      return await this.fresh(runtime, modelServiceId, startup, source, worktree);
    } catch (err) {
      await (await this.worktrees.of(runtime.cwd)).remove(worktree);
      throw err;
    }
  }

  /** A new session in the existing worktree `worktree` of `runtime`'s workspace (a worktree reset's replacement). */
  async openInWorktree(runtime: WorkspaceRuntime, worktree: WorktreeInfo, modelServiceId: string | undefined, source: SessionSource | null): Promise<CreateResult> {
    return await this.fresh(runtime, modelServiceId, null, source, worktree);
  }

  private async fresh(runtime: WorkspaceRuntime, modelServiceId: string | undefined, startup: StartupConfig | null, source: SessionSource | null, worktree: WorktreeInfo | null = null) {
    const session = await this.spawn(runtime, source, worktree);
    if (startup) {
      const applied = await applyModel(session, startup.modelServiceId, null);
      if (!applied) {
        await this.close(session.id, "client_close").catch(() => {});
        throw new DaemonError(422, "startup_config_rejected", `The agent rejected model ${JSON.stringify(startup.modelServiceId)}`, {
          modelServiceId: startup.modelServiceId,
        });
      }
    }
    return await welcome(session, this.deps.store?.storesCatalogChanges ?? false, modelServiceId, startup);
  }

  /** Starts the runtime if needed and opens a new agent session on it. */
  private spawn(runtime: WorkspaceRuntime, source: SessionSource | null, worktree: WorktreeInfo | null = null): Promise<LiveSession> {
    return this.creating(runtime, async () => {
      const live = await runtime.ensureStarted();
      const response = await this.openOnAgent(runtime, live, this.deps.config.limits.initTimeoutMs, worktree?.path);
      const session = this.adopt(response.sessionId, runtime, live.profile.name, response, { source, worktree });
      runtime.sessionOpened(live);
      return session;
    });
  }

  /**
   * Runs `work` (which opens an agent session on `runtime`) counted against the caps as a creation
   * in flight, with the runtime's idle stop held off meanwhile.
   */
  private async creating<T>(runtime: WorkspaceRuntime, work: () => Promise<T>): Promise<T> {
    this.slots.begin(runtime);
    try {
      return await work();
    } catch (err) {
      // A start the daemon's shutdown abandoned says so; one abandoned because its workspace was
      // removed or its runtime stopped meanwhile is that workspace's runtime being unavailable.
      if (err instanceof ShuttingDownError && !this.closing) throw runtimeUnavailable({ path: runtime.cwd, id: workspaceId(runtime.cwd) });
      throw err;
    } finally {
      this.slots.end(runtime);
    }
  }

  /**
   * Brings a persisted session back on its workspace's agent, within `timeoutMs` for the agent's
   * answer: `session/resume` or `session/load` of its agent-side id (`reloadOnAgent`). An agent
   * offering neither, or one that no longer knows the session, gets a fresh `session/new` seeded
   * from the journal (`restore-seed.ts`): the session keeps its id, the new agent-side id is
   * recorded in the catalog, and `method` is `seeded`. The live session keeps the catalog row's
   * `createdAt`.
   *
   * The id counts as being restored (`isRestoring`) from this call until the returned promise
   * settles, so catalog changes wait for it (`SessionCatalog`, 409 `restore_in_progress`).
   */
  reopen(
    row: Pick<CatalogRow, "id" | "agentSessionId" | "workspace" | "createdAt"> & Partial<Pick<CatalogRow, "sourceType" | "sourceId" | "parentSessionId" | "parentPromptId" | "worktree">>,
    action: "load" | "resume",
    timeoutMs: number,
  ): Promise<{ session: LiveSession; method: string }> {
    const { id: sessionId, agentSessionId, workspace, createdAt } = row;
    const source: SessionSource | null = row.sourceType ? { sourceType: row.sourceType, ...(row.sourceId ? { sourceId: row.sourceId } : {}) } : null;
    const parent = row.parentSessionId ? { parent: { parentSessionId: row.parentSessionId, parentPromptId: row.parentPromptId ?? null } } : {};
    const runtime = this.deps.runtimes.forCwd(workspace);
    this.reopening.add(sessionId);
    const recorded = parseWorktree(row.worktree ?? null);
    const done = this.creating(runtime, async () => {
      // A worktree session comes back in its checkout, checked again (it may have gone or moved).
      const worktree = row.worktree ? await this.locateWorktree(runtime, sessionId, recorded) : null;
      const cwd = worktree?.path ?? runtime.cwd;
      const live = await runtime.ensureStarted();
      const reloaded = await reloadOnAgent(runtime, live, { sessionId, agentSessionId }, action, cwd, timeoutMs);
      if (typeof reloaded === "string") return await this.reopenSeeded(sessionId, runtime, live, { createdAt, source, worktree, ...parent }, timeoutMs);
      if (this.sessions.has(sessionId)) throw restoreConflict(sessionId);
      const session = this.adopt(sessionId, runtime, live.profile.name, reloaded.response, { agentSessionId, createdAt, source, worktree, ...parent });
      runtime.sessionOpened(live);
      return { session, method: reloaded.method };
    });
    return done.finally(() => this.reopening.delete(sessionId));
  }

  /**
   * Opens a branch of `parent` on its workspace's agent (`session-branch.ts` chose how), counted
   * against the caps like a create: `session/fork` of the parent's agent session (with `meta`), or
   * a `session/new` given `seed` ahead of its first prompt. The catalog records the link.
   */
  branch(parent: LiveSession, opening: { fork: { meta?: Record<string, unknown> } } | { seed: acp.ContentBlock | null }, link: BranchLink): Promise<LiveSession> {
    const runtime = parent.runtime;
    return this.creating(runtime, async () => {
      const live = await runtime.ensureStarted();
      const timeoutMs = this.deps.config.limits.initTimeoutMs;
      const forked = "fork" in opening;
      // A branch works where its parent does: in the parent's worktree checkout, if it has one.
      const response = forked
        ? await forkOnAgent(runtime, live, { agentSessionId: parent.agentSessionId, meta: opening.fork.meta, cwd: parent.cwd }, timeoutMs, (id) => this.sessions.has(id), (id) => this.catalogHolds(id))
        : await this.openOnAgent(runtime, live, timeoutMs, parent.cwd);
      const seed = !forked && opening.seed !== null ? { seed: opening.seed } : {};
      const session = this.adopt(response.sessionId, runtime, live.profile.name, response, { parent: link, ...seed, worktree: parent.worktree });
      runtime.sessionOpened(live);
      return session;
    });
  }

  /** Whether the catalog has a row for `sessionId`; false when it cannot be read (then only live ids are checked). */
  private catalogHolds(sessionId: string): boolean {
    try {
      return (this.deps.store?.session(sessionId) ?? null) !== null;
    } catch (error) {
      if (error instanceof DaemonError) return false;
      throw error;
    }
  }

  /** The recorded worktree of `sessionId` where it was made, or 409 `worktree_missing` when it is gone, moved or unreadable. */
  private async locateWorktree(runtime: WorkspaceRuntime, sessionId: string, recorded: WorktreeInfo | null): Promise<WorktreeInfo> {
    const path = recorded === null ? null : await (await this.worktrees.of(runtime.cwd)).locate(recorded);
    if (recorded === null || path === null)
      throw new DaemonError(409, "worktree_missing", `Session ${sessionId}'s worktree checkout is missing or is no longer where it was made`, { sessionId, ...(recorded ? { worktree: recorded } : {}) });
    return recorded;
  }

  /** True while `reopen` of `sessionId` runs. */
  isRestoring(sessionId: string): boolean {
    return this.reopening.has(sessionId);
  }

  /** A fresh agent session standing in for `sessionId`, seeded from its journal. */
  private async reopenSeeded(
    sessionId: string,
    runtime: WorkspaceRuntime,
    live: Live,
    kept: { createdAt: number; source: SessionSource | null; worktree: WorktreeInfo | null; parent?: BranchLink },
    timeoutMs: number,
  ): Promise<{ session: LiveSession; method: string }> {
    // A branch's journal starts empty: its ancestors' conversation up to its turn comes first.
    const seed = restoreSeed(this.deps.store ?? null, sessionId, null, branchAncestry(this.deps.store ?? null, sessionId));
    const response = await this.openOnAgent(runtime, live, timeoutMs, kept.worktree?.path);
    if (this.sessions.has(sessionId)) throw restoreConflict(sessionId);
    const session = this.adopt(sessionId, runtime, live.profile.name, response, { agentSessionId: response.sessionId, ...kept, ...(seed ? { seed } : {}) });
    runtime.sessionOpened(live);
    return { session, method: "seeded" };
  }

  /** `session/new` on `live` in `cwd` (default: the workspace). */
  private openOnAgent(runtime: WorkspaceRuntime, live: Live, timeoutMs: number, cwd = runtime.cwd) {
    return openOnAgent(runtime, live, timeoutMs, cwd, (id) => this.sessions.has(id));
  }

  /**
   * Registers a live session for an agent session that now exists (under the agent's id for it,
   * the daemon's unless `ids.agentSessionId` says otherwise), and records it in the catalog.
   */
  private adopt(sessionId: string, runtime: WorkspaceRuntime, profile: string, state: SessionState, ids: { agentSessionId?: string; seed?: acp.ContentBlock; createdAt?: number; source?: SessionSource | null; parent?: BranchLink; worktree?: WorktreeInfo | null } = {}): LiveSession {
    const { limits, settings } = this.deps.config;
    const store = this.deps.store;
    const agentSessionId = ids.agentSessionId ?? sessionId;
    const createdAt = ids.createdAt ?? this.now();
    const source = ids.source ?? null;
    const worktree = ids.worktree ?? null;
    store?.sessionStarted({ id: sessionId, workspace: runtime.cwd, createdAt, agentSessionId, profile, ...sourceFields(source), ...parentFields(ids.parent ?? null), ...(worktree ? { worktree: worktreeText(worktree) } : {}) });
    const session = new LiveSession(sessionId, runtime, state, this.hooks, {
      ringSize: limits.eventRingSize,
      clock: this.now,
      clientIdleTtlMs: limits.sessionIdleTimeoutMs,
      maxPendingPrompts: limits.maxPendingPromptsPerSession,
      promptDeadlineMs: limits.promptDeadlineMs,
      permissions: { strategy: settings.permissionStrategy, consensusQuorum: settings.consensusQuorum, responseTimeoutMs: limits.permissionResponseTimeoutMs },
      logger: this.deps.logger,
      agentSessionId,
      createdAt,
      source,
      parent: ids.parent ?? null,
      worktree,
      ...(ids.seed ? { seed: ids.seed } : {}),
      ...(this.deps.checkpoints ? { checkpoints: this.deps.checkpoints.forSession(sessionId, worktree?.path ?? runtime.cwd) } : {}),
      ...(store ? { journal: sessionJournal(store, sessionId, this.now) } : {}),
    });
    this.sessions.set(session.id, session);
    runtime.register(agentSessionId, session);
    if (store?.degraded) session.bus.recordingStopped();
    return session;
  }

  private died(session: LiveSession, death: ChannelDeath): void {
    this.forget(session);
    this.deps.store?.sessionEnded(session.id, "restorable");
    session.end("channel_closed", {
      type: "session_died",
      data: { reason: death.reason, exitCode: death.exitCode, signalCode: death.signalCode, ...(death.message === undefined ? {} : { message: death.message }) },
    });
  }

  private forget(session: LiveSession): void {
    this.sessions.delete(session.id);
    if (this.defaults.get(session.workspaceCwd) === session.id) this.defaults.delete(session.workspaceCwd);
  }
}
