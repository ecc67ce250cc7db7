/**
 * Batches journal appends: every event recorded during one turn of the event loop is written in one
 * transaction at the next `setImmediate`, then each entry's `durable` callback runs, in the order the
 * entries were recorded. The event bus holds a frame back from its subscribers until that callback,
 * so no client ever sees an event that a SIGKILL could take back.
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
  private failed = false;
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
    if (this.pending.length >= MAX_PENDING_ENTRIES || this.pendingBytes >= MAX_PENDING_BYTES) this.flush();
    else this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Commits what is pending, then records nothing more (entries are released at once). */
  stop(): void {
    this.flush();
    this.failed = true;
  }

  /** Commits everything pending now, then releases it. */
  flush(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.pendingBytes = 0;
    let failure: { error: unknown } | null = null;
    if (!this.failed) {
      try {
        this.commit(batch);
      } catch (error) {
        this.failed = true;
        failure = { error };
      }
    }
    for (const { durable } of batch) durable();
    // Told after the batch went out, so what it publishes comes after the frames it concerns.
    if (failure !== null) this.onFailure(failure.error);
  }
}
