/**
 * `createDaemon(config)`: wires the parts together and binds the listener. It owns the process-wide
 * resources (listener, timers) and releases them in `stop()`, which is idempotent and bounded.
 */
import type { Server } from "bun";
import type { Config } from "./config/config.ts";
import { BootError } from "./config/boot-error.ts";
import { urlHost } from "./config/net.ts";
import { ignoredSettingsLine, readWorkspacePolicy } from "./config/workspace-policy.ts";
import type { Logger } from "./logging/logger.ts";
import type { AppDeps } from "./server/app-deps.ts";
import { createApp } from "./server/app.ts";
import { createFrontDoor } from "./server/front-door.ts";
import { RateLimiter } from "./server/security/rate-limiter.ts";
import { TransportStats } from "./server/transport-stats.ts";
import { RuntimeRegistry } from "./sessions/runtime-registry.ts";
import { SessionManager } from "./sessions/session-manager.ts";
import { TrustSync } from "./sessions/trust-sync.ts";
import { Store } from "./store/store.ts";
import { WorkspaceTrust } from "./trust/index.ts";

/**
 * Bun closes a connection idle this long. Short, so half-open or silent sockets cannot pile up; the
 * front door turns it off while the app handles a request (a handler may legitimately be slow).
 */
const IDLE_TIMEOUT_SECONDS = 10;
/** Hard ceiling for a request body at the socket level (JSON bodies are capped lower in the app). */
const MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;

export interface Daemon {
  readonly url: string;
  readonly port: number;
  readonly features: readonly string[];
  /** Stops accepting, ends open streams and releases everything; resolves within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface DaemonOptions {
  readonly logger: Logger;
  /** Epoch ms the process started (for startup timing in daemon status). */
  readonly processStartedAt?: number;
}

export function createDaemon(config: Config, options: DaemonOptions): Daemon {
  const { logger } = options;
  const transport = new TransportStats();
  const trust = new WorkspaceTrust({ dataDir: config.dataDir, workspace: config.workspace, folderTrust: config.settings.folderTrust, trustWorkspace: config.trustWorkspace, warn: (message) => logger.warn(message) });
  reportTrust(config, trust, logger);
  const runtimes = new RuntimeRegistry(config, logger, trust);
  // Opened on first use; a data dir that cannot hold it leaves recording degraded, not the daemon down.
  const store = new Store(config.dataDir);
  const sessions = new SessionManager({ config, logger, runtimes, store });
  const trustSync = new TrustSync({ trust, runtime: runtimes.primary, sessions: () => sessions.all(), logger });
  let server: Server<unknown> | null = null;
  const deps: AppDeps = {
    config,
    logger,
    daemon: { id: `daemon:${process.pid}`, pid: process.pid, processStartedAt: options.processStartedAt ?? Date.now(), listenerReadyAt: null },
    transport,
    rateLimiter: config.rateLimit.enabled ? new RateLimiter(config.rateLimit) : null,
    activity: () => {
      let pendingPermissions = 0;
      let activePrompts = 0;
      for (const s of sessions.all()) {
        pendingPermissions += s.permissions.pendingCount;
        if (s.prompts.running) activePrompts++;
      }
      const all = runtimes.all();
      return {
        sessions: sessions.count,
        pendingPermissions,
        activePrompts,
        liveChannels: all.filter((r) => r.channelLive).length,
        childPids: all.map((r) => r.pid).filter((pid): pid is number => pid !== null),
      };
    },
    sessions,
    runtimes,
    trust,
    trustSync,
    remoteAddress: (request) => server?.requestIP(request)?.address ?? null,
  };
  const built = createApp(deps);

  let frontDoor: ReturnType<typeof createFrontDoor> | null = null;
  try {
    server = Bun.serve({
      hostname: config.hostname,
      port: config.port,
      reusePort: false,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
      development: false,
      fetch: (request, srv) => frontDoor!(request, srv),
      error: (err) => {
        logger.error("listener error", { error: String(err) });
        return Response.json({ error: "Internal server error" }, { status: 500 });
      },
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    store.close();
    trust.close();
    if (code === "EADDRINUSE") throw new BootError(`port ${config.port} on ${config.hostname} is already in use`);
    if (code === "EADDRNOTAVAIL") throw new BootError(`--hostname ${config.hostname} is not an address of this machine`);
    if (code === "EACCES") throw new BootError(`no permission to bind ${config.hostname}:${config.port}`);
    throw new BootError(`cannot listen on ${config.hostname}:${config.port}: ${(err as Error).message}`);
  }
  const listener = server;
  const port = listener.port!;
  frontDoor = createFrontDoor({ config, logger, app: built.fetch, constantGets: built.constantGets, isStrictRoute: built.isStrictRoute, isPublicGet: built.isPublicGet, rateLimiter: deps.rateLimiter, transport, port, socketIdleTimeoutSeconds: IDLE_TIMEOUT_SECONDS });
  deps.daemon.listenerReadyAt = Date.now();
  sessions.startReaper();
  trust.watch();

  let stopping: Promise<void> | null = null;
  return {
    url: `http://${urlHost(config.hostname)}:${port}`,
    port,
    features: built.features,
    stop(graceMs = 5000) {
      stopping ??= (async () => {
        // Stop accepting, end every session (their prompts get terminal events, streams close),
        // then stop the agent children; whatever is still open at the deadline is cut.
        // The sessions' terminal events are committed (and so released to their streams) at once.
        trustSync.close();
        trust.close();
        const graceful = listener.stop(false);
        sessions.shutdown();
        store.flush();
        const deadline = new Promise<"timeout">((resolve) => setTimeout(resolve, graceMs, "timeout").unref());
        const done = Promise.all([graceful, runtimes.stop()]).then(() => "done" as const);
        if ((await Promise.race([done, deadline])) === "timeout") await listener.stop(true);
        store.close();
      })();
      return stopping;
    },
  };
}

/**
 * At start: the workspace's trust (info), and in one warning line what the workspace's settings
 * ask for that the built-in agent will not apply (the one agent that reads `.svc/settings.json`).
 */
function reportTrust(config: Config, trust: WorkspaceTrust, logger: Logger): void {
  const decision = trust.decision();
  logger.info("workspace trust", { workspace: config.workspace, trusted: decision.trusted, source: decision.source });
  if (config.agent.agent !== "builtin") return;
  const { policy } = readWorkspacePolicy({ dataDir: config.dataDir, workspace: config.workspace, trusted: decision.trusted, approvalModeFlag: config.approvalMode });
  const line = ignoredSettingsLine(config.workspace, policy.ignored);
  if (line !== null) logger.warn(line);
}
