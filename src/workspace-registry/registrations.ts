/**
 * Workspace registration (`POST /workspaces`, `PATCH`/`DELETE /workspaces/:workspace`,
 * `GET /workspace-registrations`, `DELETE /workspace-registrations/:id`): which further workspaces
 * the daemon serves besides its primary one. A dynamic registration lasts the daemon's life; a
 * persistent one is kept in `svc.db` (per primary workspace) and served again after a restart.
 * Registering starts no agent: a workspace's child starts with its first session.
 *
 * Shapes and codes follow the reference daemon (spec/protocol-notes.md is silent on them).
 */
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import type { RuntimeRegistry } from "../sessions/runtime-registry.ts";
import type { SessionManager } from "../sessions/session-manager.ts";
import type { Store } from "../store/store.ts";
import { writeRegistrationMirror } from "../store/registration-mirror.ts";
import { peekRegistrations } from "../store/workspace-registrations.ts";
import { workspaceId } from "../workspace/workspace-id.ts";
import { normalizeDisplayName } from "./display-name.ts";
import { registrablePath, within } from "./registration-path.ts";
import type { ManagedScope } from "./workspace-scope.ts";

export interface RegistrationsDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly runtimes: RuntimeRegistry;
  readonly sessions: SessionManager;
  /** Where persistent registrations live (none: only dynamic ones, 501 for the rest). */
  readonly store: Store | null;
}

/** A workspace as the registration routes answer it. */
export interface WorkspaceView {
  id: string;
  cwd: string;
  displayName?: string;
  primary: boolean;
  trusted: boolean;
  persisted?: true;
  removable?: boolean;
}

/** What a workspace's runtime is doing (a removal refuses a busy one unless forced). */
export interface WorkspaceActivity {
  sessions: number;
  activePrompts: number;
  pendingSessionStarts: number;
}

export interface RemovalReceipt {
  removed: true;
  workspaceId: string;
  workspaceCwd: string;
  forced: boolean;
  persistedRegistrationRemoved: boolean;
  /** The activity when the removal began. */
  activity: WorkspaceActivity;
  /** The live sessions it closed (each stays persisted). */
  closedSessionIds: string[];
}

export interface RegistrationEntry {
  id: string;
  cwd: string;
  displayName?: string;
  /** The daemon serves it now. */
  active: boolean;
  persisted: true;
}

const removalInProgress = () => new DaemonError(409, "workspace_removal_in_progress", "Workspace removal is in progress");

const persistenceNotAvailable = () => new DaemonError(501, "persistence_not_available", "Persistent workspace registration is not available");

export class WorkspaceRegistrations {
  /** Paths whose removal is under way (it waits for their sessions to close). */
  private readonly busy = new Set<string>();

  constructor(private readonly deps: RegistrationsDeps) {}

  /**
   * Serves the persisted registrations again (core build), read without opening the store, and
   * brings their mirror up to date (the front door's `/capabilities` before a core is built reads
   * it). One that no longer passes the checks stays persisted, inactive, and is logged.
   */
  load(): void {
    const { store, config, runtimes, logger } = this.deps;
    if (store === null) return;
    let rows;
    try {
      const peeked = peekRegistrations(config.dataDir, config.workspace);
      writeRegistrationMirror(config.dataDir, peeked.all);
      rows = peeked.rows;
    } catch (err) {
      logger.warn("persistent workspace registrations could not be read; only the primary workspace is served", { error: err instanceof Error ? err.message : String(err) });
      return;
    }
    for (const row of rows) {
      if (runtimes.count >= config.limits.maxWorkspaces) {
        logger.warn("workspace registration skipped: --max-workspaces reached", { workspace: row.path });
        continue;
      }
      try {
        const path = registrablePath(row.path, config.dataDir);
        if (path !== row.path || runtimes.atPath(path) !== null || this.nests(path)) throw new Error("it now resolves to another or a nested workspace");
        runtimes.add(path, { displayName: row.displayName, persisted: true });
      } catch (err) {
        logger.warn("persisted workspace not served", { workspace: row.path, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /**
   * Registers a workspace (201), or makes an already registered one persistent (200). 400
   * `invalid_path`/`invalid_persist_flag`/`invalid_display_name`/`invalid_persist_target` (the
   * primary cannot be persisted), 409 `workspace_exists`/`workspace_nested`/`workspace_limit_reached`/
   * `workspace_path_reserved`/`workspace_removal_in_progress`, 501 `persistence_not_available`.
   */
  register(body: Record<string, unknown>): { status: 200 | 201; view: WorkspaceView } {
    const { config, runtimes, store } = this.deps;
    const hasName = Object.hasOwn(body, "displayName");
    const displayName = hasName ? normalizeDisplayName(body.displayName) : null;
    const persist = body.persist ?? false;
    if (typeof persist !== "boolean") throw new DaemonError(400, "invalid_persist_flag", "`persist` must be a boolean");
    if (persist && store === null) throw persistenceNotAvailable();
    const path = registrablePath(body.cwd, config.dataDir);
    if (this.busy.has(path)) throw removalInProgress();
    const existing = runtimes.atPath(path);
    if (existing?.primary && persist) throw new DaemonError(400, "invalid_persist_target", "Primary workspace cannot be persisted");
    if (existing && persist) return { status: 200, view: this.persistExisting(existing, hasName ? displayName : existing.displayName) };
    if (existing) throw new DaemonError(409, "workspace_exists", "Workspace already registered");
    if (this.nests(path)) throw new DaemonError(409, "workspace_nested", "Workspace path nests with an existing workspace");
    if (runtimes.count >= config.limits.maxWorkspaces) throw new DaemonError(409, "workspace_limit_reached", "Workspace registration limit reached", { limit: config.limits.maxWorkspaces });
    if (persist) store!.addRegistration(config.workspace, { id: workspaceId(path), path, displayName, createdAt: Date.now() });
    const scope = runtimes.add(path, { displayName, persisted: persist });
    this.deps.logger.info("workspace registered", { workspace: path, persisted: persist });
    return { status: 201, view: { ...this.view(scope), ...(persist ? { persisted: true as const } : {}) } };
  }

  /** `PATCH /workspaces/:workspace`: `displayName` (null or blank: none). 400 `unsupported_field`/`empty_patch`/`invalid_display_name`, 409 `workspace_removal_in_progress`. */
  update(scope: ManagedScope, body: Record<string, unknown>): WorkspaceView {
    const unsupported = Object.keys(body).find((key) => key !== "displayName");
    if (unsupported !== undefined) throw new DaemonError(400, "unsupported_field", `\`${unsupported}\` is not an updatable workspace field`);
    if (!Object.hasOwn(body, "displayName")) throw new DaemonError(400, "empty_patch", "No updatable fields provided");
    const displayName = body.displayName === null ? null : normalizeDisplayName(body.displayName);
    if (this.busy.has(scope.path)) throw removalInProgress();
    if (scope.persisted && this.deps.store) this.deps.store.renameRegistration(this.deps.config.workspace, scope.id, displayName);
    scope.displayName = displayName;
    return { ...this.view(scope), removable: !scope.primary };
  }

  /**
   * `DELETE /workspaces/:workspace`: stops serving a registered workspace. Its live sessions are
   * closed (each stays persisted, its history readable) and its child stopped; a persistent
   * registration is forgotten too. 409 `primary_workspace_removal_forbidden`, 409 `workspace_busy`
   * (sessions, prompts or starts under way) unless `force`, 409 `workspace_removal_in_progress`.
   * With `expectedSessionIds` (what the user confirmed would close), 409 `workspace_sessions_changed`
   * when the live sessions are another set or a start is under way.
   */
  async remove(scope: ManagedScope, force: boolean, expectedSessionIds?: readonly string[]): Promise<RemovalReceipt> {
    const { runtimes, sessions, store, config } = this.deps;
    if (scope.primary) throw new DaemonError(409, "primary_workspace_removal_forbidden", "The primary workspace cannot be removed at runtime");
    if (this.busy.has(scope.path) || scope.draining) throw removalInProgress();
    const activity = this.activity(scope);
    if (expectedSessionIds !== undefined) {
      const live = sessions.sessionsOf(scope.runtime).map((s) => s.id);
      const expected = new Set(expectedSessionIds);
      if (activity.pendingSessionStarts > 0 || live.length !== expected.size || live.some((id) => !expected.has(id)))
        throw new DaemonError(409, "workspace_sessions_changed", "The workspace's live sessions changed. Refresh and confirm them again.", { liveSessionIds: live, activity });
    }
    if (!force && (activity.sessions > 0 || activity.activePrompts > 0 || activity.pendingSessionStarts > 0))
      throw new DaemonError(409, "workspace_busy", "Workspace has active runtime resources", { activity });
    this.busy.add(scope.path);
    scope.draining = true;
    try {
      // Asked of every removal, not only of a persistent one: a stored registration that was not served
      // at start (its folder was missing, the cap was reached) and then registered again for this run
      // would otherwise come back at the next start.
      const persistedRegistrationRemoved = store !== null ? store.removeRegistration(config.workspace, scope.id) : false;
      const closedSessionIds = await sessions.closeAll(scope.runtime, "workspace_removed");
      await runtimes.remove(scope);
      this.deps.logger.info("workspace removed", { workspace: scope.path, closedSessions: closedSessionIds.length });
      return { removed: true, workspaceId: scope.id, workspaceCwd: scope.path, forced: force, persistedRegistrationRemoved, activity, closedSessionIds };
    } catch (err) {
      scope.draining = false;
      throw err;
    } finally {
      this.busy.delete(scope.path);
    }
  }

  /** `GET /workspace-registrations`: the persistent registrations of this primary workspace. */
  list(): { schemaVersion: 1; primaryWorkspace: string; entries: RegistrationEntry[] } {
    const { store, config, runtimes } = this.deps;
    if (store === null) throw persistenceNotAvailable();
    const entries = store.registrations(config.workspace).map((row) => ({
      id: row.id,
      cwd: row.path,
      ...(row.displayName === null ? {} : { displayName: row.displayName }),
      active: runtimes.atPath(row.path) !== null,
      persisted: true as const,
    }));
    return { schemaVersion: 1, primaryWorkspace: config.workspace, entries };
  }

  /**
   * `DELETE /workspace-registrations/:id`: forgets a persistent registration. A workspace served now
   * stays served, as a dynamic one, until it is removed or the daemon restarts (`restartRequired`).
   * 404 `workspace_registration_not_found`.
   */
  forget(id: string): { removed: true; active: boolean; restartRequired: boolean } {
    const { store, config, runtimes } = this.deps;
    if (store === null) throw persistenceNotAvailable();
    if (!store.removeRegistration(config.workspace, id)) throw new DaemonError(404, "workspace_registration_not_found", "Workspace registration not found");
    const scope = runtimes.scopes().find((s) => s.id === id && !s.primary) ?? null;
    if (scope) scope.persisted = false;
    return { removed: true, active: scope !== null, restartRequired: scope !== null };
  }

  /** How a workspace is answered by the registration routes. */
  view(scope: ManagedScope): WorkspaceView {
    return { id: scope.id, cwd: scope.path, ...(scope.displayName === null ? {} : { displayName: scope.displayName }), primary: scope.primary, trusted: scope.trust.trusted };
  }

  activity(scope: ManagedScope): WorkspaceActivity {
    const live = this.deps.sessions.sessionsOf(scope.runtime);
    return { sessions: live.length, activePrompts: live.filter((s) => s.prompts.running !== null).length, pendingSessionStarts: this.deps.sessions.pendingStarts(scope.runtime) };
  }

  /** An already served workspace made persistent (or, persisted already, its stored name restored). */
  private persistExisting(scope: ManagedScope, displayName: string | null): WorkspaceView {
    const { store, config } = this.deps;
    if (!scope.persisted) {
      if (this.deps.runtimes.count > config.limits.maxWorkspaces) throw new DaemonError(409, "workspace_limit_reached", "Workspace registration limit reached", { limit: config.limits.maxWorkspaces });
      if (!store!.addRegistration(config.workspace, { id: scope.id, path: scope.path, displayName, createdAt: Date.now() })) store!.renameRegistration(config.workspace, scope.id, displayName);
      scope.persisted = true;
      scope.displayName = displayName;
    }
    return { ...this.view(scope), persisted: true };
  }

  /** `path` lies in, or holds, a workspace served now. */
  private nests(path: string): boolean {
    return this.deps.runtimes.scopes().some((s) => s.path !== path && (within(path, s.path) || within(s.path, path)));
  }
}
