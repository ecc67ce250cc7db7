/** What the HTTP app needs from the rest of the daemon. Tests build their own. */
import type { Config } from "../config/config.ts";
import type { Logger } from "../logging/logger.ts";
import type { RuntimeRegistry } from "../sessions/runtime-registry.ts";
import type { SessionManager } from "../sessions/session-manager.ts";
import type { TrustSync } from "../sessions/trust-sync.ts";
import type { WorkspaceTrust } from "../trust/index.ts";
import type { WorkspaceServices } from "../workspace-registry/index.ts";
import type { RestartHost } from "../update/index.ts";
import type { McpBudgetState } from "../runtime/mcp-budget-state.ts";
import type { RateLimiter } from "./security/rate-limiter.ts";
import type { WorkspaceSection } from "./status-sections.ts";
import type { TransportStats } from "./transport-stats.ts";

/** Live counts the discovery routes report. */
export interface ActivitySnapshot {
  readonly sessions: number;
  readonly pendingPermissions: number;
  readonly activePrompts: number;
  /** Agent children with a live ACP channel. */
  readonly liveChannels: number;
  /** Process ids of the running agent children. */
  readonly childPids: readonly number[];
}

export interface DaemonIdentity {
  readonly id: string;
  readonly pid: number;
  /** Epoch ms when the process started and when the listener became ready. */
  readonly processStartedAt: number;
  listenerReadyAt: number | null;
}

export interface AppDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly daemon: DaemonIdentity;
  readonly transport: TransportStats;
  readonly rateLimiter: RateLimiter | null;
  readonly activity: () => ActivitySnapshot;
  readonly sessions: SessionManager;
  readonly runtimes: RuntimeRegistry;
  /** Registration of further workspaces and runtime stop (`src/workspace-registry/`). */
  readonly workspaces: WorkspaceServices;
  /** The bound workspace's trust, live (`src/trust/`). */
  readonly trust: WorkspaceTrust;
  /** Carries trust changes to the live agent. */
  readonly trustSync: TrustSync;
  /** The socket address a request came from (null once it is gone). */
  readonly remoteAddress: (request: Request) => string | null;
  /** What a restart into an update borrows from the daemon (`src/update/`); absent where the daemon cannot restart itself. */
  readonly restartHost?: RestartHost;
  /** What `/daemon/status` reads besides the daemon's own state; a member left out takes the route's default. */
  readonly statusSources?: StatusSources;
}

export interface StatusSources {
  /** The workspace sections `detail=full` reads (default: the workspace snapshots, status-sections.ts). */
  readonly sections?: readonly WorkspaceSection[];
  /** What the daemon knows of the MCP client budget (default: nothing). */
  readonly mcpBudget?: () => McpBudgetState | null;
}
