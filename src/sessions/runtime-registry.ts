/**
 * Workspace runtimes: the primary workspace's and one per registered workspace, each with its own
 * trust (`src/trust/`), its own trust sync and its own agent child, started on first use (the
 * session manager stops a child left without sessions). A create whose `cwd` canonicalizes to no
 * workspace served is refused with `workspace_mismatch`. Lookups by id, path and runtime are maps.
 *
 * The built-in agent is started with the daemon's trust decision for its workspace (and
 * `--approval-mode`) as arguments (`config/agent-args.ts`). A decision that changed while the child
 * was starting is told to it before any session opens (`svc/control/workspace/trust`); later
 * changes are `trust-sync.ts`'s.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { agentArgsFor } from "../config/agent-args.ts";
import { hostKeyVariableNames } from "../config/agent-keys.ts";
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { OrphanReaper } from "../runtime/orphan-reaper.ts";
import { announceTrust } from "../runtime/profile-controls.ts";
import { stderrSecrets } from "../runtime/stderr-secrets.ts";
import { WorkspaceRuntime, type RuntimeDeps } from "../runtime/workspace-runtime.ts";
import { WorkspaceTrust } from "../trust/index.ts";
import { workspaceId } from "../workspace/workspace-id.ts";
import type { ManagedScope, WorkspaceScope, WorkspaceScopes } from "../workspace-registry/workspace-scope.ts";
import type { LiveSession } from "./live-session.ts";
import { TrustSync } from "./trust-sync.ts";

/** What the registry reads of the workspace's trust. */
export interface TrustReader {
  readonly trusted: boolean;
}

/** A registered workspace's own parts besides its scope. */
interface Registered {
  readonly scope: ManagedScope;
  readonly trustSync: TrustSync;
}

export const untrustedWorkspace = (scope: WorkspaceScope, sessionId?: string) =>
  new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.", { ...(sessionId === undefined ? {} : { sessionId }), workspaceCwd: scope.path, workspaceId: scope.id });

export const runtimeUnavailable = (scope: Pick<WorkspaceScope, "path" | "id">) =>
  new DaemonError(503, "workspace_runtime_unavailable", "Workspace runtime is not active.", { workspaceCwd: scope.path, workspaceId: scope.id }, 1);

export class RuntimeRegistry implements WorkspaceScopes {
  readonly primary: WorkspaceRuntime;
  readonly primaryScope: ManagedScope;
  private readonly reaper = new OrphanReaper();
  /** Registered workspaces (not the primary), by id, in registration order. */
  private readonly registered = new Map<string, Registered>();
  private readonly byPath = new Map<string, ManagedScope>();
  private readonly byRuntime = new Map<WorkspaceRuntime, ManagedScope>();

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    trust: WorkspaceTrust,
    private readonly parts: {
      /** The providers set up through the API, read at each agent start (`src/auth/`); absent: none. */
      readonly storedProviders?: RuntimeDeps["storedProviders"];
      /** The daemon's live sessions (read when a registered workspace's trust changes). */
      readonly sessions?: () => Iterable<LiveSession>;
    } = {},
  ) {
    this.primary = this.runtimeFor(config.workspace, trust);
    this.primaryScope = { path: config.workspace, id: workspaceId(config.workspace), primary: true, trust, runtime: this.primary, displayName: null, persisted: false, draining: false };
    this.byPath.set(this.primaryScope.path, this.primaryScope);
    this.byRuntime.set(this.primary, this.primaryScope);
  }

  all(): WorkspaceRuntime[] {
    return this.scopes().map((s) => s.runtime);
  }

  scopes(): readonly ManagedScope[] {
    return [this.primaryScope, ...[...this.registered.values()].map((r) => r.scope)];
  }

  /** How many workspaces are served, the primary included. */
  get count(): number {
    return 1 + this.registered.size;
  }

  resolve(selector: string, param = ":workspace"): ManagedScope {
    const scope = selector.startsWith("/") ? this.atSelectorPath(selector) : selector === this.primaryScope.id ? this.primaryScope : this.registered.get(selector)?.scope;
    if (scope) return scope;
    if (!/^[0-9a-f]{16}$/.test(selector) && !selector.startsWith("/")) throw new DaemonError(400, "invalid_workspace", `\`${param}\` must decode to a workspace id or absolute path`);
    throw new DaemonError(404, "workspace_not_found", "No such workspace is registered");
  }

  /** The scope an absolute path names: as written, else canonicalized (a trailing slash, a symlink). */
  private atSelectorPath(path: string): ManagedScope | undefined {
    const exact = this.byPath.get(path);
    if (exact) return exact;
    try {
      return this.byPath.get(realpathSync(path));
    } catch {
      return undefined;
    }
  }

  /** The scope at canonical `path`, or null. */
  atPath(path: string): ManagedScope | null {
    return this.byPath.get(path) ?? null;
  }

  /** The scope a runtime serves (every runtime the registry made has one). */
  scopeOf(runtime: WorkspaceRuntime): ManagedScope | null {
    return this.byRuntime.get(runtime) ?? null;
  }

  /** Serves a further workspace at canonical `path` (its checks are the caller's: `workspace-registry/`). No child starts. */
  add(path: string, meta: { displayName: string | null; persisted: boolean }): ManagedScope {
    const { config, logger } = this;
    const trust = new WorkspaceTrust({ dataDir: config.dataDir, workspace: path, folderTrust: config.settings.folderTrust, trustWorkspace: false, warn: (message) => logger.warn(message) });
    const runtime = this.runtimeFor(path, trust);
    const scope: ManagedScope = { path, id: workspaceId(path), primary: false, trust, runtime, ...meta, draining: false };
    const trustSync = new TrustSync({ trust, runtime, sessions: this.parts.sessions ?? (() => []), logger });
    trust.watch();
    this.registered.set(scope.id, { scope, trustSync });
    this.byPath.set(path, scope);
    this.byRuntime.set(runtime, scope);
    return scope;
  }

  /** Stops serving a registered workspace: its trust is let go and its child stopped (its sessions are the caller's to close first). */
  async remove(scope: ManagedScope): Promise<void> {
    const entry = this.registered.get(scope.id);
    if (!entry || entry.scope !== scope) return;
    this.registered.delete(scope.id);
    this.byPath.delete(scope.path);
    this.byRuntime.delete(scope.runtime);
    entry.trustSync.close();
    scope.trust.close();
    await scope.runtime.stop();
  }

  /**
   * The runtime for a requested cwd (default: the primary workspace): the workspace served at its
   * canonical path. 400 `workspace_mismatch` for none, 403 `untrusted_workspace` for an untrusted
   * registered one (the primary is exempt), 503 `workspace_runtime_unavailable` while it is being removed or stopped.
   */
  forCwd(cwd: string | undefined): WorkspaceRuntime {
    if (cwd === undefined || cwd === this.config.workspace) return this.admit(this.primaryScope);
    let canonical: string | null = null;
    try {
      canonical = realpathSync(resolve(this.config.workspace, cwd));
    } catch {
      canonical = null;
    }
    const scope = canonical === null ? undefined : this.byPath.get(canonical);
    if (!scope)
      throw new DaemonError(400, "workspace_mismatch", "`cwd` does not resolve to a workspace this daemon serves", {
        boundWorkspace: this.config.workspace,
        requestedWorkspace: cwd,
        ...(this.registered.size > 0 ? { workspaceCount: this.count } : {}),
      });
    return this.admit(scope);
  }

  /** A scope's runtime for a new or restored session: 503 while it drains, 403 when it is a registered one the user does not trust. */
  private admit(scope: ManagedScope): WorkspaceRuntime {
    if (scope.draining) throw runtimeUnavailable(scope);
    if (!scope.primary && !scope.trust.trusted) throw untrustedWorkspace(scope);
    return scope.runtime;
  }

  /** Stops every child (bounded), every registered workspace's trust, and the orphan watcher. */
  async stop(): Promise<void> {
    for (const { scope, trustSync } of this.registered.values()) {
      trustSync.close();
      scope.trust.close();
    }
    await Promise.all(this.all().map((r) => r.stop()));
    await this.reaper.close();
  }

  private runtimeFor(path: string, trust: WorkspaceTrust): WorkspaceRuntime {
    const { config, logger } = this;
    return new WorkspaceRuntime(path, {
      launch: config.agent,
      initTimeoutMs: config.limits.initTimeoutMs,
      version: config.version,
      logger,
      reaper: this.reaper,
      secrets: stderrSecrets(config.agent, config.token),
      mcpBudget: config.mcp,
      ...(this.parts.storedProviders ? { storedProviders: this.parts.storedProviders } : {}),
      ...(config.agent.agent === "builtin" ? { keyNames: () => hostKeyVariableNames(config.dataDir), ...builtinTrust(config, path, trust) } : {}),
    });
  }
}

/** The built-in agent's start: the decision as arguments, and the decision told again if it changed before the child was up. */
function builtinTrust(config: Config, workspace: string, trust: TrustReader): Pick<RuntimeDeps, "agentArgs" | "onStarted"> {
  let spawned: boolean | null = null;
  return {
    agentArgs: () => agentArgsFor((spawned = trust.trusted), config.approvalMode),
    onStarted: async (live) => {
      const now = trust.trusted;
      if (live.profile.extensionPrefix === "svc" && now !== spawned) await announceTrust(live, workspace, now);
    },
  };
}
