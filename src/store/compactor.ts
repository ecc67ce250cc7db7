/**
 * Compaction: gives the disk space of deleted sessions back, a bounded step at a time, so a delete of
 * a session with a journal of hundreds of MB never holds the event loop for long.
 *
 * A delete commits at once (the catalog row goes, and a `purge` row records which of the session's
 * journal rows are now garbage: those up to `up_to_seq`); readers skip those rows from that commit
 * on (journal-reader.ts). This runs the rest in steps, one per event-loop turn (`setImmediate`, so
 * requests are served between them):
 * 1. journal rows (chunks) of a purge entry, at most `PURGE_ROWS_PER_STEP` rows and about
 *    `PURGE_BYTES_PER_STEP` bytes of stored body per step; the step that removes the last one removes
 *    the entry too (and the session's journal keys with it unless its id has rows again);
 * 2. `incremental_vacuum`, at most `VACUUM_PAGES_PER_STEP` pages per step, until the free list is
 *    empty (the file shrinks);
 * 3. a `wal_checkpoint(TRUNCATE)`, so the write-ahead log gives its space back too.
 * The purge entries are in the database, so a restart mid-way resumes where it stopped (the store
 * starts a compactor whenever it opens the database). A step that finds the database locked is
 * tried again after `LOCKED_RETRY_MS`; any other failure stops compaction until the next open (the
 * garbage stays invisible, only its space is not returned).
 */
import type { Database, Statement } from "bun:sqlite";
import { isBusy } from "./journal-writer.ts";

/** Journal rows deleted per step, at most. */
export const PURGE_ROWS_PER_STEP = 256;
/** Stored bytes deleted per step, about (a step deletes at least one row, however large). */
export const PURGE_BYTES_PER_STEP = 2 * 1024 * 1024;
/** Pages handed back to the file system per step (1 MiB at the default 4 KiB page). */
export const VACUUM_PAGES_PER_STEP = 256;
/** Wait before a step that found the database locked is tried again. */
export const LOCKED_RETRY_MS = 200;

interface PurgeEntry {
  session_id: string;
  up_to_seq: number;
}

export class Compactor {
  /** The next step: on the next loop turn, or after a lock's backoff. */
  private next: { readonly cancel: () => void } | null = null;
  private stopped = false;
  private readonly nextPurge: Statement<PurgeEntry>;
  private readonly rowsToPurge: Statement<{ seq: number; n: number }>;
  private readonly purgeRows: Statement;
  private readonly purgeDone: Statement;
  private readonly dropEpochs: Statement;
  private readonly dropSession: Statement;
  private readonly freePages: Statement<{ freelist_count: number }>;

  constructor(private readonly db: Database) {
    this.nextPurge = db.query("SELECT session_id, up_to_seq FROM purge LIMIT 1");
    const session = "session = (SELECT key FROM journal_sessions WHERE id = $sessionId)";
    this.rowsToPurge = db.query(`SELECT seq, length(CAST(body AS BLOB)) AS n FROM journal WHERE ${session} AND seq <= $upTo ORDER BY seq LIMIT $limit`);
    this.purgeRows = db.query(`DELETE FROM journal WHERE ${session} AND seq <= $last`);
    this.purgeDone = db.query("DELETE FROM purge WHERE session_id = $sessionId AND up_to_seq = $upTo");
    // Once a session id has no journal row left (its id was not taken again meanwhile), its keys go too.
    const unused = `(SELECT key FROM journal_sessions WHERE id = $sessionId AND NOT EXISTS (SELECT 1 FROM journal WHERE ${session}))`;
    this.dropEpochs = db.query(`DELETE FROM journal_epochs WHERE session = ${unused}`);
    this.dropSession = db.query(`DELETE FROM journal_sessions WHERE key = ${unused}`);
    this.freePages = db.query("PRAGMA freelist_count");
  }

  /** True while there is work left (steps scheduled). */
  get running(): boolean {
    return this.next !== null;
  }

  /** Starts stepping (after a delete, or at open); a no-op while running or once stopped. */
  start(): void {
    if (this.next === null && !this.stopped) this.schedule(0);
  }

  /** Stops stepping (the database is closing); whatever is left resumes at the next open. */
  stop(): void {
    this.stopped = true;
    this.next?.cancel();
    this.next = null;
  }

  /** Runs every step now, synchronously (tests, benches). */
  finish(): void {
    this.stop();
    this.stopped = false;
    while (this.once() === "more");
  }

  /** The next step after `delayMs`, or on the next loop turn (after pending I/O) for 0. */
  private schedule(delayMs: number): void {
    if (delayMs === 0) {
      const immediate = setImmediate(() => this.step());
      this.next = { cancel: () => clearImmediate(immediate) };
    } else {
      const timer = setTimeout(() => this.step(), delayMs);
      this.next = { cancel: () => clearTimeout(timer) };
    }
  }

  private step(): void {
    this.next = null;
    let outcome: "more" | "done";
    try {
      outcome = this.once();
    } catch (error) {
      // Any other failure (a full disk, an I/O error) ends this run; the next open tries again.
      if (isBusy(error)) this.schedule(LOCKED_RETRY_MS);
      return;
    }
    if (outcome === "more") this.schedule(0);
  }

  /** One bounded step; "done" once nothing is left. */
  private once(): "more" | "done" {
    const purge = this.nextPurge.get();
    if (purge !== null) {
      this.db.transaction(() => this.purgeStep(purge)).immediate();
      return "more";
    }
    if (this.freePages.get()!.freelist_count > 0) {
      // PRAGMA takes no bound parameters; the count is a constant above.
      this.db.run(`PRAGMA incremental_vacuum(${VACUUM_PAGES_PER_STEP})`);
      return "more";
    }
    // A reader in the way leaves the log to a later checkpoint (journal_size_limit trims it then).
    this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    return "done";
  }

  private purgeStep({ session_id: sessionId, up_to_seq: upTo }: PurgeEntry): void {
    let last: number | null = null;
    let bytes = 0;
    for (const row of this.rowsToPurge.iterate({ sessionId, upTo, limit: PURGE_ROWS_PER_STEP })) {
      last = row.seq;
      bytes += row.n;
      if (bytes >= PURGE_BYTES_PER_STEP) break;
    }
    if (last !== null) this.purgeRows.run({ sessionId, last });
    // The entry goes in the step that removes its last row, never a step later: once a deleted
    // session's rows (the newest of the journal) are gone, `seq` (no AUTOINCREMENT) is handed out
    // again, so a row of the id written in between would fall under the entry: hidden from readers,
    // then removed with the garbage.
    if (last === null || this.rowsToPurge.get({ sessionId, upTo, limit: 1 }) === null) {
      this.purgeDone.run({ sessionId, upTo });
      this.dropEpochs.run({ sessionId });
      this.dropSession.run({ sessionId });
    }
  }
}
