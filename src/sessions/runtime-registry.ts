/**
 * Workspace runtimes by canonical workspace path. This build binds one primary workspace: a create
 * whose `cwd` does not canonicalize to it is refused with `workspace_mismatch`.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { hostKeyVariableNames } from "../config/agent-keys.ts";
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { OrphanReaper } from "../runtime/orphan-reaper.ts";
import { stderrSecrets } from "../runtime/stderr-secrets.ts";
import { WorkspaceRuntime } from "../runtime/workspace-runtime.ts";

export class RuntimeRegistry {
  readonly primary: WorkspaceRuntime;
  private readonly reaper = new OrphanReaper();

  constructor(
    private readonly config: Config,
    logger: Logger,
  ) {
    this.primary = new WorkspaceRuntime(config.workspace, {
      launch: config.agent,
      initTimeoutMs: config.limits.initTimeoutMs,
      version: config.version,
      logger,
      reaper: this.reaper,
      secrets: stderrSecrets(config.agent, config.token),
      mcpBudget: config.mcp,
      ...(config.agent.agent === "builtin" ? { keyNames: () => hostKeyVariableNames(config.dataDir) } : {}),
    });
  }

  all(): WorkspaceRuntime[] {
    return [this.primary];
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
