/**
 * Client changes to persisted sessions, in bulk: archive, unarchive, delete (which also compacts
 * the database), and looking sessions up by id. A live session is neither archived nor deleted
 * (close it first): its outcome says `live`. Every id gets an outcome, in the order given. A
 * request naming a session that is being restored changes nothing and is 409 `restore_in_progress`
 * (with `Retry-After`): the restore would put the row back, or leave an archived session live.
 * The check and the change run in one synchronous step, and a restore marks its id as it starts
 * after checking the row in one too, so neither can slip between the other's check and change.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { Store } from "../store/store.ts";
import { restoreInProgress } from "./restore-in-progress.ts";
import type { SessionManager } from "./session-manager.ts";
import { persistedSummary, type SessionListRecord } from "./session-history.ts";
import { sessionSummary } from "./session-summary.ts";

/** Most ids one bulk request names. */
export const MAX_BULK_IDS = 500;

export type BulkAction = "archive" | "unarchive" | "delete";
export type BulkOutcome = "archived" | "unarchived" | "deleted" | "not_found" | "live";

const DONE: Record<BulkAction, BulkOutcome> = { archive: "archived", unarchive: "unarchived", delete: "deleted" };

export class SessionCatalog {
  constructor(
    private readonly sessions: SessionManager,
    private readonly store: Store | null,
  ) {}

  bulk(action: BulkAction, ids: readonly string[]): { results: { sessionId: string; outcome: BulkOutcome }[] } {
    const unique = [...new Set(ids)];
    const restoring = unique.filter((id) => this.sessions.isRestoring(id));
    if (restoring.length > 0) throw restoreInProgress(`Sessions being restored cannot be ${DONE[action]} now; retry shortly`, { sessionIds: restoring });
    const live = new Set(unique.filter((id) => this.sessions.peek(id) !== null));
    const targets = unique.filter((id) => !live.has(id));
    const store = this.requireStore();
    const found = targets.length === 0 ? new Set<string>() : action === "delete" ? store.deleteSessions(targets) : store.setArchived(targets, action === "archive");
    return {
      results: unique.map((sessionId) => ({ sessionId, outcome: live.has(sessionId) ? "live" : found.has(sessionId) ? DONE[action] : "not_found" })),
    };
  }

  /** What is known about each id: live sessions with their live state, others from the catalog (503 while it cannot be read: never a false `missing`). */
  lookup(ids: readonly string[]) {
    const sessions: SessionListRecord[] = [];
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const live = this.sessions.peek(id);
      const row = this.store?.session(id) ?? null;
      if (live) sessions.push({ ...sessionSummary(live, { listEntry: true }), isArchived: row?.archived ?? false, live: true as const });
      else if (row) sessions.push(persistedSummary(row));
      else missing.push(id);
    }
    return { sessions, missing };
  }

  private requireStore(): Store {
    if (this.store === null) throw new DaemonError(503, "store_unavailable", "This daemon keeps no session history", { reason: "no_store" });
    return this.store;
  }
}
