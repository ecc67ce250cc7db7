/**
 * Workspace runtimes by canonical workspace path. This build binds one primary workspace: a create
 * whose `cwd` does not canonicalize to it is refused with `workspace_mismatch`.
 *
 * The built-in agent is started with the daemon's trust decision for the workspace (and
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
import type { WorkspaceTrust } from "../trust/index.ts";
import { workspaceId } from "../workspace/workspace-id.ts";
import type { WorkspaceScope, WorkspaceScopes } from "../workspace-registry/workspace-scope.ts";

/** What the registry reads of the workspace's trust. */
export interface TrustReader {
  readonly trusted: boolean;
}

export class RuntimeRegistry implements WorkspaceScopes {
  readonly primary: WorkspaceRuntime;
  readonly primaryScope: WorkspaceScope;
  private readonly reaper = new OrphanReaper();

  constructor(
    private readonly config: Config,
    logger: Logger,
    trust: WorkspaceTrust,
    /** The providers set up through the API, read at each agent start (`src/auth/`); absent: none. */
    storedProviders?: RuntimeDeps["storedProviders"],
  ) {
    this.primary = new WorkspaceRuntime(config.workspace, {
      launch: config.agent,
      initTimeoutMs: config.limits.initTimeoutMs,
      version: config.version,
      logger,
      reaper: this.reaper,
      secrets: stderrSecrets(config.agent, config.token),
      mcpBudget: config.mcp,
      ...(storedProviders ? { storedProviders } : {}),
      ...(config.agent.agent === "builtin" ? { keyNames: () => hostKeyVariableNames(config.dataDir), ...builtinTrust(config, trust) } : {}),
    });
    this.primaryScope = { path: config.workspace, id: workspaceId(config.workspace), primary: true, trust, runtime: this.primary };
  }

  all(): WorkspaceRuntime[] {
    return [this.primary];
  }

  scopes(): readonly WorkspaceScope[] {
    return [this.primaryScope];
  }

  resolve(selector: string, param = ":workspace"): WorkspaceScope {
    if (selector === this.primaryScope.path || selector === this.primaryScope.id) return this.primaryScope;
    if (!/^[0-9a-f]{16}$/.test(selector) && !selector.startsWith("/")) throw new DaemonError(400, "invalid_workspace", `\`${param}\` must decode to a workspace id or absolute path`);
    throw new DaemonError(404, "workspace_not_found", "No such workspace is registered");
  }

  /** The runtime for a requested cwd (default: the primary workspace). */
  forCwd(cwd: string | undefined): WorkspaceRuntime {
    if (cwd === undefined || cwd === this.config.workspace) return this.primary;
    let canonical: string | null = null;
    try {
      canonical = realpathSync(resolve(this.config.workspace, cwd));
    } catch {
      canonical = null;
    }
    if (canonical !== this.config.workspace)
      throw new DaemonError(400, "workspace_mismatch", "`cwd` does not resolve to the bound workspace", {
        boundWorkspace: this.config.workspace,
        requestedWorkspace: cwd,
      });
    return this.primary;
  }

  /** Stops every child (bounded) and the orphan watcher. */
  async stop(): Promise<void> {
    await Promise.all(this.all().map((r) => r.stop()));
    await this.reaper.close();
  }
}

/** The built-in agent's start: the decision as arguments, and the decision told again if it changed before the child was up. */
function builtinTrust(config: Config, trust: TrustReader): Pick<RuntimeDeps, "agentArgs" | "onStarted"> {
  let spawned: boolean | null = null;
  return {
    agentArgs: () => agentArgsFor((spawned = trust.trusted), config.approvalMode),
    onStarted: async (live) => {
      const now = trust.trusted;
      if (live.profile.extensionPrefix === "svc" && now !== spawned) await announceTrust(live, config.workspace, now);
    },
  };
}
