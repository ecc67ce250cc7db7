/**
 * `createDaemon(config)`: binds the listener behind the front door and wires the rest on first use.
 * It owns the process-wide resources (listener, timers) and releases them in `stop()`, which is
 * idempotent and bounded.
 *
 * At boot the daemon holds the front door and the workspace's trust, and answers `GET /health` and
 * `GET /capabilities` (what launchers poll).
 * The core (runtimes, sessions, store, the HTTP app with its routes) is loaded and built by the
 * first request that needs it, through `server/lazy-seams.ts`; requests that come meanwhile wait
 * for it and get the answers they would have had from a daemon that built it at boot.
 */
import type { Server } from "bun";
import type { Config } from "./config/config.ts";
import { BootError } from "./config/boot-error.ts";
import { urlHost } from "./config/net.ts";
import { HANDOVER_NONCE_HEADER, HANDOVER_REQUEST_HEADER, relaunchArgs, SERVICE_RESTART_EXIT_CODE } from "./config/update-handover.ts";
import { ignoredSettingsLine, readWorkspacePolicy } from "./config/workspace-policy.ts";
import type { Logger } from "./logging/logger.ts";
import type { CoreDeps, DaemonCore } from "./server/app-core.ts";
import { bootWorkspaces } from "./server/boot-workspaces.ts";
import { capabilitiesResponder } from "./server/capabilities-answer.ts";
import { featureTags } from "./server/capability.ts";
import { createFrontDoor } from "./server/front-door.ts";
import { loadAppCore } from "./server/lazy-seams.ts";
import { ROUTE_TAGS } from "./server/route-tags.ts";
import { RateLimiter } from "./server/security/rate-limiter.ts";
import { TransportStats } from "./server/transport-stats.ts";
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
  /** Stops accepting, ends open streams and releases everything; resolves within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface DaemonOptions {
  readonly logger: Logger;
  /** Epoch ms the process started (for startup timing in daemon status). */
  readonly processStartedAt?: number;
  /**
   * How this process restarts into an update (`svc serve` of a compiled binary): the `svc`
   * arguments it was started with, and what it does once the new daemon serves (leave). Without
   * it the daemon cannot restart itself.
   */
  readonly relaunch?: {
    readonly args: readonly string[];
    retire(): void;
    /** Leave with this exit code once the answer is sent (the reason is logged by then). */
    exit(code: number): void;
  };
}

export function createDaemon(config: Config, options: DaemonOptions): Daemon {
  const { logger } = options;
  const transport = new TransportStats();
  const trust = new WorkspaceTrust({ dataDir: config.dataDir, workspace: config.workspace, folderTrust: config.settings.folderTrust, trustWorkspace: config.trustWorkspace, warn: (message) => logger.warn(message) });
  reportTrust(config, trust, logger);
  let server: Server<unknown> | null = null;
  const coreDeps: CoreDeps = {
    config,
    logger,
    daemon: { id: `daemon:${process.pid}`, pid: process.pid, processStartedAt: options.processStartedAt ?? Date.now(), listenerReadyAt: null },
    transport,
    rateLimiter: config.rateLimit.enabled ? new RateLimiter(config.rateLimit) : null,
    trust,
    remoteAddress: (request) => server?.requestIP(request)?.address ?? null,
  };
  let core: Promise<DaemonCore> | null = null;
  const buildCore = () => (core ??= loadAppCore().then(({ buildCore }) => buildCore(coreDeps)));

  let frontDoor: ReturnType<typeof createFrontDoor> | null = null;
  /** Set while a restart hands the port to a new daemon: every request is told to come back. */
  let restarting = false;
  /** What a shutdown during a restart undoes first (restart.ts). */
  let abandonRestart: (() => void) | null = null;
  let rebinding: ReturnType<typeof setInterval> | null = null;
  let stopped = false;
  /** This daemon was started by a restart: the nonce it proves that with (update-handover.ts). */
  const handover = config.launcher.handoverNonce;
  const handoverAnswer = async (request: Request, srv: Server<unknown>) => {
    const response = await frontDoor!(request, srv);
    const answer = new Response(response.body, response);
    answer.headers.set(HANDOVER_NONCE_HEADER, handover!);
    return answer;
  };
  const listen = (port: number) =>
    Bun.serve({
      hostname: config.hostname,
      port,
      reusePort: false,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
      development: false,
      fetch: (request, srv) => (restarting ? restartingResponse() : handover !== null && request.headers.has(HANDOVER_REQUEST_HEADER) ? handoverAnswer(request, srv) : frontDoor!(request, srv)),
      error: (err) => {
        logger.error("listener error", { error: String(err) });
        return Response.json({ error: "Internal server error" }, { status: 500 });
      },
    });
  try {
    server = listen(config.port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    trust.close();
    if (code === "EADDRINUSE") throw new BootError(`port ${config.port} on ${config.hostname} is already in use`);
    if (code === "EADDRNOTAVAIL") throw new BootError(`--hostname ${config.hostname} is not an address of this machine`);
    if (code === "EACCES") throw new BootError(`no permission to bind ${config.hostname}:${config.port}`);
    throw new BootError(`cannot listen on ${config.hostname}:${config.port}: ${(err as Error).message}`);
  }
  let listener = server;
  const port = listener.port!;
  const routing = async () => {
    const started = performance.now();
    const built = (await buildCore()).routing;
    logger.debug("app built", { ms: Math.round(performance.now() - started) });
    return built;
  };
  // A door of its own for each core: a restart that rolled back reopens it, and the next request builds a new core.
  // Before the core, /capabilities lists the registrations from their mirror, or waits for the core when only it can say.
  const openDoor = () => {
    const boot = bootWorkspaces(config, () => trust.trusted);
    return createFrontDoor({
      config,
      logger,
      routing,
      bootGets: new Map([["/capabilities", capabilitiesResponder(config, () => featureTags(ROUTE_TAGS, config), () => boot.workspaces() ?? [])]]),
      bootDefers: (path) => path === "/capabilities" && boot.workspaces() === null,
      rateLimiter: coreDeps.rateLimiter,
      transport,
      port,
      socketIdleTimeoutSeconds: IDLE_TIMEOUT_SECONDS,
    });
  };
  frontDoor = openDoor();
  coreDeps.daemon.listenerReadyAt = Date.now();
  trust.watch();
  if (options.relaunch !== undefined && config.agent.compiled) {
    const { relaunch } = options;
    coreDeps.restartHost = {
      argv: relaunchArgs(relaunch.args, port),
      env: config.agent.baseEnv,
      healthUrl: `http://${urlHost(config.hostname)}:${port}/health`,
      serviceManager: config.launcher.serviceManager,
      async suspend() {
        restarting = true;
        logger.info("restarting into an update: the listener stops, sessions end restorable");
        void listener.stop(false);
        const built = core === null ? null : await core.catch(() => null);
        core = null;
        if (built !== null) {
          await built.stop(Promise.resolve(), RESTART_STOP_GRACE_MS);
          built.close();
        }
      },
      resume() {
        if (stopped) return "the daemon is shutting down";
        frontDoor = openDoor();
        const bind = () => {
          server = listener = listen(port);
          restarting = false;
          logger.warn("the update's daemon did not start: rolled back, serving again");
        };
        try {
          bind();
          return null;
        } catch (err) {
          const why = `port ${port} cannot be bound again (${(err as Error).message}); retrying for ${REBIND_DEADLINE_MS / 1000} s, then exiting`;
          logger.error(`rolled back, but ${why}`);
          const deadline = Date.now() + REBIND_DEADLINE_MS;
          rebinding = setInterval(() => {
            try {
              bind();
              clearInterval(rebinding!);
              rebinding = null;
            } catch {
              if (Date.now() < deadline) return;
              clearInterval(rebinding!);
              rebinding = null;
              logger.error(`rolled back from an update, but port ${port} could not be bound again within ${REBIND_DEADLINE_MS / 1000} s: exiting`);
              relaunch.exit(1);
            }
          }, REBIND_RETRY_MS);
          return why;
        }
      },
      retire() {
        logger.info("the update's daemon serves on this port: leaving");
        relaunch.retire();
      },
      exitForServiceRestart() {
        logger.info(`updated: exiting with ${SERVICE_RESTART_EXIT_CODE} so the ${config.launcher.serviceManager} service restarts into the new build`);
        relaunch.exit(SERVICE_RESTART_EXIT_CODE);
      },
      setAbandon(abandon) {
        abandonRestart = abandon;
      },
    };
  }

  let stopping: Promise<void> | null = null;
  return {
    url: `http://${urlHost(config.hostname)}:${port}`,
    port,
    stop(graceMs = 5000) {
      stopping ??= (async () => {
        stopped = true;
        if (rebinding !== null) clearInterval(rebinding);
        try {
          abandonRestart?.();
        } catch (err) {
          logger.error("the update being restarted into could not be undone", { error: (err as Error).message });
        }
        // Stop accepting, end every session (their prompts get terminal events, streams close),
        // then stop the agent children; whatever is still open at the deadline is cut. A core still
        // being built is finished first, so what it started is stopped too.
        trust.close();
        const graceful = listener.stop(false);
        const built = core === null ? null : await core.catch(() => null);
        const outcome = built === null ? await Promise.race([graceful.then(() => "done" as const), timeout(graceMs)]) : await built.stop(graceful, graceMs);
        if (outcome === "timeout") await listener.stop(true);
        built?.close();
      })();
      return stopping;
    },
  };
}

/** How long a restart gives the sessions and agents to stop before the new daemon starts. */
const RESTART_STOP_GRACE_MS = 4000;
/** A rollback that finds its port taken tries to bind it again this often, this long. */
const REBIND_RETRY_MS = 250;
const REBIND_DEADLINE_MS = 60_000;

/** What a request gets while the port is being handed to an updated daemon: come back in a second (on a new connection). */
function restartingResponse(): Response {
  return Response.json(
    { error: "the daemon is restarting into an update; retry", code: "daemon_restarting" },
    { status: 503, headers: { "Retry-After": "1", Connection: "close" } },
  );
}

const timeout = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(resolve, ms, "timeout").unref());

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
