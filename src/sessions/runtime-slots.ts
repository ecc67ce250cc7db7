/**
 * How the sessions use the workspaces' agent children: the session creations in flight per
 * workspace, counted with the live sessions against the caps (`--max-sessions` per workspace,
 * `--max-total-sessions` in all), and per runtime the one pending stop of a child left without
 * sessions, after `--channel-idle-timeout-ms` counted from the last release (re-armed at each
 * release, cancelled by a creation).
 */
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { WorkspaceRuntime } from "../runtime/workspace-runtime.ts";

export class RuntimeSlots {
  /** Creations in flight, by workspace. */
  private readonly inflight = new Map<string, number>();
  private readonly idleStops = new Map<WorkspaceRuntime, Timer>();

  constructor(
    private readonly limits: Pick<Config["limits"], "maxSessions" | "maxTotalSessions" | "channelIdleTimeoutMs">,
    /** How many sessions are live, in all workspaces. */
    private readonly liveSessions: () => number,
  ) {}

  /** Creations of `runtime`'s sessions in flight now. */
  pending(runtime: WorkspaceRuntime): number {
    return this.inflight.get(runtime.cwd) ?? 0;
  }

  /** 503 `session_limit_exceeded` when one more session of `runtime` would pass a cap. */
  checkCaps(runtime: WorkspaceRuntime): void {
    const { maxSessions, maxTotalSessions } = this.limits;
    const inWorkspace = runtime.sessionCount + this.pending(runtime);
    let total = this.liveSessions();
    for (const n of this.inflight.values()) total += n;
    const over = (scope: "workspace" | "total", limit: number) =>
      new DaemonError(503, "session_limit_exceeded", `Session limit reached (${limit})`, { limit, scope }, 5);
    if (maxSessions > 0 && inWorkspace >= maxSessions) throw over("workspace", maxSessions);
    if (maxTotalSessions > 0 && total >= maxTotalSessions) throw over("total", maxTotalSessions);
  }

  /** A creation of `runtime`'s begins (within the caps, or it throws): counted, and the child's idle stop held off. */
  begin(runtime: WorkspaceRuntime): void {
    this.checkCaps(runtime);
    this.inflight.set(runtime.cwd, this.pending(runtime) + 1);
    this.cancelIdleStop(runtime);
  }

  /** The creation `begin` counted has ended, however it ended. */
  end(runtime: WorkspaceRuntime): void {
    const n = this.pending(runtime) - 1;
    if (n <= 0) this.inflight.delete(runtime.cwd);
    else this.inflight.set(runtime.cwd, n);
    this.release(runtime);
  }

  /**
   * With no session left (and none being created), the child goes after `--channel-idle-timeout-ms`
   * counted from this release: an earlier release's stop is replaced, and a new session cancels it.
   */
  release(runtime: WorkspaceRuntime): void {
    if (runtime.sessionCount > 0 || this.inflight.has(runtime.cwd)) return;
    this.cancelIdleStop(runtime);
    const timer = setTimeout(() => {
      this.idleStops.delete(runtime);
      if (runtime.sessionCount === 0 && !this.inflight.has(runtime.cwd)) void runtime.stopIfIdle();
    }, this.limits.channelIdleTimeoutMs);
    timer.unref();
    this.idleStops.set(runtime, timer);
  }

  /** Cancels every pending stop (daemon shutdown: the registry stops the children). */
  clear(): void {
    for (const timer of this.idleStops.values()) clearTimeout(timer);
    this.idleStops.clear();
  }

  private cancelIdleStop(runtime: WorkspaceRuntime): void {
    clearTimeout(this.idleStops.get(runtime));
    this.idleStops.delete(runtime);
  }
}
