/** The dependencies of the daemon's app for tests that build it without `createDaemon`: the real session manager and runtimes, quiet counters. */
import type { Config } from "../../src/config/config.ts";
import type { Logger } from "../../src/logging/logger.ts";
import type { AppDeps } from "../../src/server/app-deps.ts";
import { TransportStats } from "../../src/server/transport-stats.ts";
import { RuntimeRegistry } from "../../src/sessions/runtime-registry.ts";
import { SessionManager } from "../../src/sessions/session-manager.ts";

export function testAppDeps(config: Config, logger: Logger, remoteAddress: AppDeps["remoteAddress"] = () => null): AppDeps {
  const runtimes = new RuntimeRegistry(config, logger);
  const sessions = new SessionManager({ config, logger, runtimes });
  return {
    config,
    logger,
    daemon: { id: "daemon:test", pid: process.pid, processStartedAt: Date.now(), listenerReadyAt: Date.now() },
    transport: new TransportStats(),
    rateLimiter: null,
    activity: () => ({ sessions: sessions.count, pendingPermissions: 0, activePrompts: 0, liveChannels: 0, childPids: [] }),
    sessions,
    runtimes,
    remoteAddress,
  };
}
