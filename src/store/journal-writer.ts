/**
 * Batches journal appends: every event recorded during one turn of the event loop is written in one
 * transaction at the next `setImmediate`, then each entry's `durable` callback runs, in the order the
 * entries were recorded. The event bus holds a frame back from its subscribers until that callback,
 * so no client ever sees an event that a SIGKILL could take back.
 *
 * A write that finds the database locked (SQLITE_BUSY: another connection holds the write lock past
 * the busy timeout) is transient: the batch stays pending, unreleased, and is retried after a
 * backoff, a bounded number of times (`BUSY_RETRY_DELAYS_MS`); only then does it count as failed.
 *
 * A write that fails (disk full, read-only database, I/O error, a lock held too long) does not lose
 * the batch's delivery: the callbacks still run, `onFailure` hears about it once, and from then on
 * the writer records nothing and releases every entry at once (recording stays degraded until the
 * daemon restarts, so a journal never has holes in its middle).
 */
import type { Database, Statement } from "bun:sqlite";

/**
 * Pending-queue bounds. Past either one the queue is committed at once, inside the append that
 * crossed it (the publisher pays one commit), so memory stays bounded and nothing is dropped.
 */
export const MAX_PENDING_ENTRIES = 4096;
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/**
 * Backoff before each retry of a batch that found the database locked. Each attempt also waits up
 * to the busy timeout inside SQLite, so a lock held for a few seconds is ridden out; past the last
 * retry the write counts as failed. While a batch waits its events are held from subscribers (new
 * ones queue behind it); reaching the pending bounds above ends the wait (one last try).
 */
export const BUSY_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000];

/** SQLITE_BUSY (and its extended codes): another connection holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export interface JournalEntry {
  readonly sessionId: string;
  readonly epoch: string;
  readonly eventId: number;
  readonly type: string;
  /** The envelope exactly as its subscribers receive it (one line of JSON). */
  readonly envelope: string;
  readonly timestamp: number;
}

interface Pending {
  readonly entry: JournalEntry;
  readonly durable: () => void;
}

export class JournalWriter {
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private scheduled: ReturnType<typeof setImmediate> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failed = false;
  /** Retries spent on the batch at the head of `pending` (which found the database locked). */
  private busyRetries = 0;
  private readonly insert: Statement;
  private readonly touch: Statement;
  private readonly commit: (batch: readonly Pending[]) => void;

  constructor(
    db: Database,
    private readonly onFailure: (error: unknown) => void,
  ) {
    this.insert = db.query("INSERT INTO journal (session_id, epoch, event_id, type, envelope) VALUES ($sessionId, $epoch, $eventId, $type, $envelope)");
    this.touch = db.query("UPDATE sessions SET updated_at = MAX(updated_at, $timestamp) WHERE id = $sessionId");
    this.commit = db.transaction((batch: readonly Pending[]) => {
      const newest = new Map<string, number>();
      for (const { entry } of batch) {
        this.insert.run({ sessionId: entry.sessionId, epoch: entry.epoch, eventId: entry.eventId, type: entry.type, envelope: entry.envelope });
        newest.set(entry.sessionId, entry.timestamp);
      }
      for (const [sessionId, timestamp] of newest) this.touch.run({ sessionId, timestamp });
    }).immediate as (batch: readonly Pending[]) => void;
  }

  /** True once a write has failed: entries are then released unrecorded. */
  get degraded(): boolean {
    return this.failed;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Queues `entry`; `durable` runs once it is committed (or once recording has given up). */
  append(entry: JournalEntry, durable: () => void): void {
    if (this.failed) {
      durable();
      return;
    }
    this.pending.push({ entry, durable });
    this.pendingBytes += entry.envelope.length;
    if (this.pending.length >= MAX_PENDING_ENTRIES || this.pendingBytes >= MAX_PENDING_BYTES) {
      // Past the bounds while a locked batch waits: the wait ends, one last try, then it has failed.
      if (this.retryTimer !== null) this.busyRetries = BUSY_RETRY_DELAYS_MS.length;
      this.flush();
    } else if (this.retryTimer === null) this.scheduled ??= setImmediate(() => this.flush());
  }

  /**
   * Writes `entry` at once, outside the batches, even after recording has failed: the one marker
   * of where recording stopped. One try, no retry; false when it could not be written.
   */
  writeMarker(entry: JournalEntry): boolean {
    try {
      this.commit([{ entry, durable: () => {} }]);
      return true;
    } catch {
      return false;
    }
  }

  /** Commits what is pending (no more retries), then records nothing more (entries are released at once). */
  stop(): void {
    this.busyRetries = BUSY_RETRY_DELAYS_MS.length;
    this.flush();
    this.failed = true;
  }

  /**
   * Commits everything pending now, then releases it; a batch that finds the database locked stays
   * pending for a later retry while retries remain.
   */
  flush(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const batch = this.pending;
    if (batch.length === 0) return;
    let failure: { error: unknown } | null = null;
    if (!this.failed) {
      try {
        this.commit(batch);
      } catch (error) {
        const delay = isBusy(error) ? BUSY_RETRY_DELAYS_MS[this.busyRetries] : undefined;
        if (delay !== undefined) {
          this.busyRetries++;
          this.retryTimer = setTimeout(() => this.flush(), delay);
          return;
        }
        this.failed = true;
        failure = { error };
      }
    }
    this.busyRetries = 0;
    this.pending = [];
    this.pendingBytes = 0;
    for (const { durable } of batch) durable();
    // Told after the batch went out, so what it publishes comes after the frames it concerns.
    if (failure !== null) this.onFailure(failure.error);
  }
}
