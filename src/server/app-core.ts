/**
 * The daemon's core, built on the first request that needs more than the front door: the agent
 * runtimes, the sessions, the store and the HTTP app with every route. `daemon.ts` loads it through
 * `lazy-seams.ts`, so a daemon that launchers only poll on `/health` never loads it.
 */
import { CheckpointSeam } from "../sessions/checkpoint-seam.ts";
import { RuntimeRegistry } from "../sessions/runtime-registry.ts";
import { SessionManager } from "../sessions/session-manager.ts";
import { TrustSync } from "../sessions/trust-sync.ts";
import { Store } from "../store/store.ts";
import { workspaceServices } from "../workspace-registry/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { createApp } from "./app.ts";
import { loadAuth } from "./lazy-seams.ts";
import type { Routing } from "./front-door.ts";

/** What the front door gives the core: the daemon's own parts, which exist before it. */
export type CoreDeps = Pick<AppDeps, "config" | "logger" | "daemon" | "transport" | "rateLimiter" | "trust" | "remoteAddress"> & { restartHost?: AppDeps["restartHost"] };

export interface DaemonCore {
  readonly routing: Routing;
  /** Ends every session and stops the agent children, within `graceMs`; `listenerStopped` settles when the listener has drained. */
  stop(listenerStopped: Promise<void>, graceMs: number): Promise<"done" | "timeout">;
  /** Closes the store, last. */
  close(): void;
}

export function buildCore(deps: CoreDeps): DaemonCore {
  const { config, logger, trust } = deps;
  // `sessions` is read only when a registered workspace's trust changes, once it exists.
  const runtimes: RuntimeRegistry = new RuntimeRegistry(config, logger, trust, {
    storedProviders: () => loadAuth().then((auth) => auth.storedProviders({ dataDir: config.dataDir, logger })),
    sessions: () => sessions.all(),
  });
  // Opened on first use; a data dir that cannot hold it leaves recording degraded, not the daemon down.
  const store = new Store(config.dataDir);
  const checkpoints = new CheckpointSeam({ dataDir: config.dataDir, maxBytes: config.limits.maxSnapshotBytes, baseEnv: config.agent.baseEnv }, logger);
  const sessions = new SessionManager({ config, logger, runtimes, store, checkpoints });
  const trustSync = new TrustSync({ trust, runtime: runtimes.primary, sessions: () => sessions.all(), logger });
  const workspaces = workspaceServices({ config, logger, runtimes, sessions });
  // The persistent registrations are served again (no child starts until a session needs one).
  workspaces.registrations.load();
  const built = createApp({ ...deps, activity: () => activity(sessions, runtimes), sessions, runtimes, workspaces, trustSync });
  sessions.startReaper();
  return {
    routing: { app: built.fetch, constantGets: built.constantGets, isStrictRoute: built.isStrictRoute, isPublicGet: built.isPublicGet, webhookGate: built.webhookGate },
    async stop(listenerStopped, graceMs) {
      // End every session (their prompts get terminal events, streams close), then stop the agent
      // children. The sessions' terminal events are committed (and so released to their streams) at once.
      trustSync.close();
      sessions.shutdown();
      store.flush();
      const deadline = new Promise<"timeout">((resolve) => setTimeout(resolve, graceMs, "timeout").unref());
      const done = Promise.all([listenerStopped, runtimes.stop()]).then(() => "done" as const);
      return Promise.race([done, deadline]);
    },
    close: () => store.close(),
  };
}

function activity(sessions: SessionManager, runtimes: RuntimeRegistry) {
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
}
