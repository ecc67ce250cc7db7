/**
 * Carries a change of the workspace's trust to the live built-in agent, in the order the changes
 * came (one at a time):
 * - the agent takes it at once (`svc/control/workspace/trust`): revoking switches its sessions in a
 *   wider mode to `default` (each gets `approval_mode_changed`), granting lets them be widened and
 *   applies the trusted settings to the sessions it opens next (`applied`);
 * - no agent is running: the next one starts with the decision (`not_running`);
 * - the agent is not svc's built-in one: it keeps its own trust settings; the daemon's checks
 *   (file writes, settings controls) follow the decision all the same (`not_applicable`);
 * - the built-in agent did not take a revocation (an error, a timeout): it is stopped, ending its
 *   sessions, rather than left running wider than the user allows (`stopped`); a grant it did not
 *   take applies when it next starts (`next_start`).
 * The daemon's own checks read the trust live and need nothing from here.
 */
import type { Logger } from "../logging/logger.ts";
import { announceTrust } from "../runtime/profile-controls.ts";
import type { WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import type { LiveSession } from "./live-session.ts";

export type AgentTrustOutcome = "applied" | "not_running" | "not_applicable" | "stopped" | "next_start";

/** The trust this follows (`src/trust/`'s WorkspaceTrust). */
export interface TrustChanges {
  onChange(listener: (next: { trusted: boolean }) => void): () => void;
}

export interface TrustSyncDeps {
  readonly trust: TrustChanges;
  readonly runtime: WorkspaceRuntime;
  /** The live sessions of the workspace. */
  readonly sessions: () => Iterable<LiveSession>;
  readonly logger: Logger;
}

export class TrustSync {
  /** The last change's application; each waits for the one before it. */
  private last: Promise<AgentTrustOutcome> = Promise.resolve("not_running");
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: TrustSyncDeps) {
    this.unsubscribe = deps.trust.onChange((next) => {
      this.last = this.last.then(() => this.apply(next.trusted));
    });
  }

  /** What became of the latest change (resolves once it is applied). */
  latest(): Promise<AgentTrustOutcome> {
    return this.last;
  }

  close(): void {
    this.unsubscribe();
  }

  private async apply(trusted: boolean): Promise<AgentTrustOutcome> {
    const { runtime, logger } = this.deps;
    const live = runtime.current();
    logger.info(trusted ? "workspace trusted" : "workspace trust revoked", { workspace: runtime.cwd });
    if (!live) return "not_running";
    if (live.profile.extensionPrefix !== "svc") return "not_applicable";
    try {
      const { narrowed } = await announceTrust(live, runtime.cwd, trusted);
      const byAgentId = new Map<string, LiveSession>();
      for (const session of this.deps.sessions()) if (session.runtime === runtime) byAgentId.set(session.agentSessionId, session);
      for (const { agentSessionId, previous } of narrowed) {
        const session = byAgentId.get(agentSessionId);
        session?.publish("approval_mode_changed", { sessionId: session.id, previous, next: "default", persisted: false });
      }
      return "applied";
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (trusted) {
        logger.warn("the agent did not take the workspace's trust; it applies when the agent next starts", { error });
        return "next_start";
      }
      logger.error("the agent did not take the trust revocation; stopping it", { error });
      runtime.kill("trust revoked");
      return "stopped";
    }
  }
}
