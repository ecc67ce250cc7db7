/**
 * Automatic titles: after a session's first completed turn, a session without a title gets one
 * (`session-generation.ts`: its model's where its agent is the built-in one, else its first
 * request's first line), published as `session_metadata_updated {displayName, titleSource:
 * "auto"}` and so kept in the catalog. On unless the settings say `ui.autoTitle: false`, or the
 * session `autoTitle: false` (`PATCH /session/:id/metadata`). A title set meanwhile (by a client or
 * the agent, now or before a restore: the catalog row's name counts) is never overwritten; one
 * attempt per live session.
 */
import type { Logger } from "../logging/logger.ts";
import type { Store } from "../store/store.ts";
import type { LiveSession } from "./live-session.ts";
import { readDigest, title } from "./session-generation.ts";

export class AutoTitler {
  /** Sessions already tried (their first completed turn came). */
  private readonly tried = new WeakSet<LiveSession>();

  constructor(
    private readonly enabled: boolean,
    private readonly store: Store | null,
    private readonly logger: Logger,
  ) {}

  /** The session's turn completed: title it when this is its first and it has no title. */
  turnCompleted(session: LiveSession): void {
    if (!this.enabled || this.tried.has(session)) return;
    this.tried.add(session);
    // After the turn's own events are published (and so journaled before the digest is read).
    setImmediate(() => void this.run(session));
  }

  private wanted(session: LiveSession): boolean {
    if (session.metadata.displayName !== undefined || session.metadata.autoTitle === false || session.isEnded) return false;
    const row = this.store?.session(session.id) ?? null;
    return row === null || (row.displayName === null && row.metadata.autoTitle !== false);
  }

  private async run(session: LiveSession): Promise<void> {
    try {
      if (!this.wanted(session)) return;
      const made = await title(session, readDigest(this.store, session.id));
      if (made.title === null || !this.wanted(session)) return;
      session.metadata.displayName = made.title;
      session.metadata.titleSource = "auto";
      session.publish("session_metadata_updated", { sessionId: session.id, displayName: made.title, titleSource: "auto" });
    } catch (err) {
      this.logger.warn("automatic title failed", { sessionId: session.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
