/** The dependencies of the daemon's app for tests that build it without `createDaemon`: the real session manager and runtimes, quiet counters. */
import type { Config } from "../../src/config/config.ts";
import type { Logger } from "../../src/logging/logger.ts";
import type { AppDeps } from "../../src/server/app-deps.ts";
import { TransportStats } from "../../src/server/transport-stats.ts";
import { RuntimeRegistry } from "../../src/sessions/runtime-registry.ts";
import { SessionManager } from "../../src/sessions/session-manager.ts";
import { TrustSync } from "../../src/sessions/trust-sync.ts";
import { WorkspaceTrust } from "../../src/trust/index.ts";
import { workspaceServices } from "../../src/workspace-registry/index.ts";

export function testAppDeps(config: Config, logger: Logger, remoteAddress: AppDeps["remoteAddress"] = () => null): AppDeps {
  const trust = new WorkspaceTrust({ dataDir: config.dataDir, workspace: config.workspace, folderTrust: config.settings.folderTrust, trustWorkspace: config.trustWorkspace, warn: (message) => logger.warn(message) });
  const runtimes: RuntimeRegistry = new RuntimeRegistry(config, logger, trust, { sessions: () => sessions.all() });
  const sessions = new SessionManager({ config, logger, runtimes });
  const trustSync = new TrustSync({ trust, runtime: runtimes.primary, sessions: () => sessions.all(), logger });
  return {
    config,
    logger,
    daemon: { id: "daemon:test", pid: process.pid, processStartedAt: Date.now(), listenerReadyAt: Date.now() },
    transport: new TransportStats(),
    rateLimiter: null,
    activity: () => ({ sessions: sessions.count, pendingPermissions: 0, activePrompts: 0, liveChannels: 0, childPids: [] }),
    sessions,
    runtimes,
    workspaces: workspaceServices({ config, logger, runtimes, sessions }),
    trust,
    trustSync,
    remoteAddress,
  };
}
