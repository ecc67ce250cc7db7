/**
 * Batches journal appends: every event recorded during one turn of the event loop is written in one
 * transaction at the next `setImmediate`, then each entry's `done` callback runs (`done(true)`), in
 * the order the entries were recorded. Each session's events of a commit go in as few chunks as journal-chunk.ts
 * allows (one row per run of consecutive ids of one epoch). The event bus holds a frame back from
 * its subscribers until that callback, so no client ever sees an event that a SIGKILL could take
 * back. Catalog writes (a session started, renamed, ended) go through here too, so a lock that holds
 * the journal back holds them back in the same order.
 *
 * A write that finds the database locked (SQLITE_BUSY: another connection holds the write lock past
 * the short busy timeout) is transient: the batch stays pending, unreleased, and is tried again on a
 * timer with a growing backoff (`busyRetryDelay`), so the event loop never sits in SQLite's busy wait
 * for more than one busy timeout. New entries queue behind it. The wait ends when the lock is
 * released (the batch commits, recording goes on) or after `MAX_LOCK_WAIT_MS`, or when the queue
 * reaches its bounds (`MAX_PENDING_*`): then one last try, and if the lock is still held the writer
 * opens a gap (journal-gap.ts). Every held entry is released unrecorded and counted into the gap,
 * and so is every entry appended while the gap is open (counted, not kept); catalog writes are kept
 * (`MAX_GAP_CHANGES`; a rename replaces the session's earlier one). `onGap.opened` hears about it once. Every
 * `GAP_PROBE_MS` the writer tries to close the gap: one transaction writes a `recording_gap` marker
 * per session epoch and the kept catalog writes; once it commits, `onGap.closed` hears about it and
 * recording goes on as before. So a long outside lock leaves a visible, measured hole in the journal,
 * never a silent one, and never an end to recording.
 *
 * A write that fails otherwise (disk full, read-only database, I/O error), or a gap that passes its
 * bounds, does not lose the batch's delivery: the callbacks still run (`done(false)`), `onFailure`
 * hears about it once (the store then has the degraded-recording notices published and the
 * daemon-status issue raised), and from then on the writer records nothing and releases every entry
 * at once (recording stays degraded until the daemon restarts, so a journal never has unmarked holes
 * in its middle). A failure or a gap is told BEFORE the batch's callbacks run: a session's bus then
 * puts its notice ahead of the frames this batch did not record (event-bus.ts), never behind them.
 */
import type { Database, Statement } from "bun:sqlite";
import { encodeChunk, MAX_CHUNK_CHARS, MAX_CHUNK_EVENTS } from "./journal-chunk.ts";
import { JournalGap } from "./journal-gap.ts";
import { JournalKeys } from "./journal-keys.ts";

/**
 * Pending-queue bounds. Past either one the queue is committed at once, inside the append that
 * crossed it (the publisher pays one commit), so memory stays bounded and nothing is dropped. While
 * the queue waits for a lock, crossing a bound ends the wait instead (one last try, then a gap:
 * every held entry is released unrecorded and counted into it, and so are the entries that follow
 * until the lock goes; none of them is kept).
 */
export const MAX_PENDING_ENTRIES = 4096;
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/**
 * How often, at most, a session's `updated_at` (the list's order) follows its events: once per this
 * much event time. Writing it with every commit cost a seventh of the writer's time at a flat-out
 * tick (its row and its index entry, every time). So a session's `updated_at` may lag its newest
 * event by up to this much; when the session ends it is set exactly (catalog.markEnded), so only a
 * session a crash interrupted keeps the lag.
 */
export const TOUCH_INTERVAL_MS = 1000;

/**
 * Most sessions whose last touch is remembered. Past it all are forgotten (each is touched again
 * on its next commit): memory stays bounded, and a forgotten session is only written more often.
 */
export const MAX_TOUCHED_SESSIONS = 4096;

/**
 * How long a batch may wait for another connection's write lock, all retries together. Its events
 * are held from subscribers meanwhile, so this stays a few seconds; past it a gap opens.
 */
export const MAX_LOCK_WAIT_MS = 10_000;

/** While a gap is open: how often the writer tries to close it (write its markers, so recording goes on). */
export const GAP_PROBE_MS = 1000;

/**
 * Most catalog writes kept while a gap is open: a session started or ended adds one, a rename
 * replaces the session's earlier one. Past it recording fails for good, as a gap past
 * MAX_GAP_SESSIONS does.
 */
export const MAX_GAP_CHANGES = 4096;

/** Backoff before the n-th retry (0-based) of a batch that found the database locked: 50 ms doubling up to 1 s. */
export function busyRetryDelay(retry: number): number {
  return Math.min(50 * 2 ** retry, 1000);
}

/** SQLITE_BUSY (and its extended codes): another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export interface JournalEntry {
  readonly sessionId: string;
  readonly epoch: string;
  readonly eventId: number;
  /** The envelope exactly as its subscribers receive it (one line of JSON). */
  readonly envelope: string;
  readonly timestamp: number;
}

/** Told when a gap opens (the lock that caused it) and when it closes (its markers are written). */
export interface GapListener {
  readonly opened: (error: unknown) => void;
  readonly closed: () => void;
}

/** A chunk being filled within one commit: one session epoch's events with consecutive ids. */
interface OpenChunk {
  readonly session: number;
  readonly epoch: number;
  readonly firstEventId: number;
  readonly envelopes: string[];
  chars: number;
}

/** One session's keys within a batch, the newest timestamp of its entries there, and its chunk being filled. */
interface BatchKeys {
  readonly session: number;
  readonly epochs: Map<string, number>;
  newest: number;
  chunk: OpenChunk | null;
}

/** Told whether an entry was committed (`true`) or released unrecorded (`false`). */
export type Done = (recorded: boolean) => void;

/** A journal entry, or a catalog write queued behind a batch that waits for a lock. */
type Pending = { readonly entry: JournalEntry; readonly done: Done } | { readonly change: () => void; readonly key: string };

/** What the writer keeps while a gap is open: the gap's counts and the latest catalog write of each key. */
interface OpenGap {
  readonly counts: JournalGap;
  readonly changes: Map<string, () => void>;
}

export class JournalWriter {
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private scheduled: ReturnType<typeof setImmediate> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failed = false;
  /** While the batch at the head of `pending` waits for a lock: when it first found it, and the retries spent. */
  private lockWait: { readonly since: number; retries: number } | null = null;
  /** While a lock outlasted the wait: what was not recorded, until the markers are written (`retryTimer` probes). */
  private gap: OpenGap | null = null;
  /** Keys for catalog writes given none: each its own, never coalesced with another. */
  private anonymousChanges = 0;
  private readonly insert: Statement;
  private readonly touch: Statement;
  /** The `updated_at` last written for each session (see TOUCH_INTERVAL_MS), by session id. */
  private readonly touched = new Map<string, number>();
  private readonly keys: JournalKeys;
  private readonly transaction: (batch: readonly Pending[]) => void;

  constructor(
    db: Database,
    private readonly onFailure: (error: unknown) => void,
    private readonly onGap: GapListener = { opened: () => {}, closed: () => {} },
  ) {
    this.insert = db.query("INSERT INTO journal (session, epoch, first_event_id, count, chars, encoding, body) VALUES (?, ?, ?, ?, ?, ?, ?)");
    this.touch = db.query("UPDATE sessions SET updated_at = MAX(updated_at, ?1) WHERE id = ?2");
    this.keys = new JournalKeys(db);
    this.transaction = db.transaction((batch: readonly Pending[]) => {
      // Keys are looked up inside each transaction, never cached across them: the compactor may
      // remove a deleted session's keys between two batches.
      const batchKeys = new Map<string, BatchKeys>();
      for (const item of batch) {
        if ("change" in item) {
          // What came before the change is written before it.
          for (const keys of batchKeys.values()) this.insertChunk(keys);
          item.change();
          continue;
        }
        const { entry } = item;
        let keys = batchKeys.get(entry.sessionId);
        if (keys === undefined) {
          keys = { session: this.keys.session(entry.sessionId), epochs: new Map(), newest: 0, chunk: null };
          batchKeys.set(entry.sessionId, keys);
        }
        let epoch = keys.epochs.get(entry.epoch);
        if (epoch === undefined) {
          epoch = this.keys.epoch(keys.session, entry.epoch);
          keys.epochs.set(entry.epoch, epoch);
        }
        this.add(keys, epoch, entry);
        keys.newest = entry.timestamp;
      }
      for (const [sessionId, keys] of batchKeys) {
        this.insertChunk(keys);
        this.touchSession(sessionId, keys.newest);
      }
    }).immediate as (batch: readonly Pending[]) => void;
  }

  /** Adds `entry` to its session's chunk, or writes that chunk and starts another when the entry does not continue it. */
  private add(keys: BatchKeys, epoch: number, entry: JournalEntry): void {
    const { envelope } = entry;
    const alone = envelope.includes("\n");
    const chunk = keys.chunk;
    const continues =
      chunk !== null &&
      !alone &&
      chunk.epoch === epoch &&
      entry.eventId === chunk.firstEventId + chunk.envelopes.length &&
      chunk.envelopes.length < MAX_CHUNK_EVENTS &&
      chunk.chars + envelope.length <= MAX_CHUNK_CHARS;
    if (!continues) {
      this.insertChunk(keys);
      keys.chunk = { session: keys.session, epoch, firstEventId: entry.eventId, envelopes: [], chars: 0 };
    }
    keys.chunk!.envelopes.push(envelope);
    keys.chunk!.chars += envelope.length;
    if (alone) this.insertChunk(keys);
  }

  /** Writes the session's chunk being filled, if any, as one row. */
  private insertChunk(keys: BatchKeys): void {
    const chunk = keys.chunk;
    if (chunk === null) return;
    keys.chunk = null;
    const { encoding, body } = encodeChunk(chunk.envelopes, chunk.chars);
    this.insert.run(chunk.session, chunk.epoch, chunk.firstEventId, chunk.envelopes.length, chunk.chars, encoding, body);
  }

  /** Moves the session's `updated_at` to `newest` unless it was moved less than TOUCH_INTERVAL_MS of event time before. */
  private touchSession(sessionId: string, newest: number): void {
    const last = this.touched.get(sessionId);
    if (last !== undefined && newest - last < TOUCH_INTERVAL_MS) return;
    this.touch.run(newest, sessionId);
    if (this.touched.size >= MAX_TOUCHED_SESSIONS) this.touched.clear();
    this.touched.set(sessionId, newest);
  }

  /** Writes `batch` in one transaction; when it fails (and rolls back), the touches it noted are forgotten too. */
  private commit(batch: readonly Pending[]): void {
    try {
      this.transaction(batch);
    } catch (error) {
      this.touched.clear();
      throw error;
    }
  }

  /** True once a write has failed: entries are then released unrecorded. */
  get degraded(): boolean {
    return this.failed;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** True while a batch waits for another connection's lock, or a gap it left waits to be written. */
  get waiting(): boolean {
    return this.lockWait !== null || this.gap !== null;
  }

  /** Queues `entry`; `done(true)` runs once it is committed, `done(false)` at once while a gap is open or recording has given up. */
  append(entry: JournalEntry, done: Done): void {
    if (this.failed) {
      done(false);
      return;
    }
    if (this.gap !== null) {
      if (!this.gap.counts.add(entry)) this.fail(new Error("too many sessions published while the database was locked"));
      done(false);
      return;
    }
    this.pending.push({ entry, done });
    this.pendingBytes += entry.envelope.length;
    if (this.pending.length >= MAX_PENDING_ENTRIES || this.pendingBytes >= MAX_PENDING_BYTES) this.flush();
    else if (this.lockWait === null) this.scheduled ??= setImmediate(() => this.flush());
  }

  /**
   * Counts a notice a session's bus released ahead of the entries the open gap missed (see
   * `JournalGap.addAhead`); without a gap it is appended as any entry.
   */
  appendAhead(notice: JournalEntry): void {
    if (this.gap === null) return this.append(notice, () => {});
    if (!this.gap.counts.addAhead(notice)) this.fail(new Error("too many sessions published while the database was locked"));
  }

  /**
   * A catalog write: run now, in its own transaction, unless a batch waits for a lock (then it
   * queues behind it, in order), a gap is open (then it is kept until the gap is written, in place
   * of an earlier write of the same `key`) or it finds the database locked itself (then it starts
   * such a wait). Any other failure degrades recording, as a failed batch does. Give a `key` only
   * to writes that set columns no other write sets (the latest then stands for all, wherever the
   * first stood); a write without one is never replaced.
   */
  change(change: () => void, key = `#${this.anonymousChanges++}`): void {
    if (this.failed) return;
    if (this.gap !== null) {
      this.gap.changes.set(key, change);
      if (this.gap.changes.size > MAX_GAP_CHANGES) this.fail(new Error("too many session changes while the database was locked"));
      return;
    }
    if (this.lockWait === null)
      try {
        change();
        return;
      } catch (error) {
        if (!isBusy(error)) {
          this.onFailure(error);
          return;
        }
        this.lockWait = { since: performance.now(), retries: 0 };
        this.retryTimer = setTimeout(() => this.flush(), busyRetryDelay(0));
      }
    this.pending.push({ change, key });
    if (this.pending.length >= MAX_PENDING_ENTRIES) this.flush();
  }

  /**
   * Starts with a gap opened before this writer existed (the store could not open the database for
   * another process's lock: store.ts): what it counts and the catalog writes it kept, by key. Tries
   * to write it at once; still locked: probes as for a gap of its own.
   */
  startWithGap(counts: JournalGap, changes: Map<string, () => void>): void {
    this.gap = { counts, changes };
    this.flush();
  }

  /**
   * Writes `entry` at once, outside the batches, even after recording has failed: the one marker
   * of where recording stopped. One try, no retry; false when it could not be written.
   */
  writeMarker(entry: JournalEntry): boolean {
    try {
      this.commit([{ entry, done: () => {} }]);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Commits what is pending, or writes an open gap (one try, no more waiting), then records nothing
   * more (entries are released at once). A gap still locked out stays unwritten: the journal just ends.
   */
  stop(): void {
    this.flush(true);
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.gap = null;
    this.failed = true;
  }

  /**
   * Commits everything pending now, then releases it (or, while a gap is open, tries once to write
   * it). A batch that finds the database locked stays pending and is retried later, unless `last`
   * or its wait is over (time, or the queue's bounds): then a gap opens (or, when `last`, it has failed).
   */
  flush(last = false): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.gap !== null) return this.closeGap();
    const batch = this.pending;
    if (batch.length === 0) return;
    let failure: { error: unknown } | null = null;
    let committed = false;
    if (!this.failed) {
      try {
        this.commit(batch);
        committed = true;
      } catch (error) {
        if (isBusy(error) && !last) {
          if (this.mayWaitLonger()) {
            const wait = (this.lockWait ??= { since: performance.now(), retries: 0 });
            this.retryTimer = setTimeout(() => this.flush(), busyRetryDelay(wait.retries++));
            return;
          }
          return this.openGap(error);
        }
        this.failed = true;
        failure = { error };
      }
    }
    this.lockWait = null;
    this.pending = [];
    this.pendingBytes = 0;
    // Told before the batch goes out, so that the notices it has published come ahead of the frames it did not record.
    if (failure !== null) this.onFailure(failure.error);
    for (const item of batch) if ("done" in item) item.done(committed);
  }

  /** Whether a locked batch may be retried later: within its time and the queue's bounds. */
  private mayWaitLonger(): boolean {
    if (this.pending.length >= MAX_PENDING_ENTRIES || this.pendingBytes >= MAX_PENDING_BYTES) return false;
    return this.lockWait === null || performance.now() - this.lockWait.since < MAX_LOCK_WAIT_MS;
  }

  /** The lock outlasted the wait: the held batch goes out unrecorded, counted into a new gap; probing starts. */
  private openGap(error: unknown): void {
    const batch = this.pending;
    const gap: OpenGap = { counts: new JournalGap(), changes: new Map() };
    this.gap = gap;
    this.lockWait = null;
    this.pending = [];
    this.pendingBytes = 0;
    for (const item of batch)
      if ("change" in item) gap.changes.set(item.key, item.change);
      else gap.counts.add(item.entry);
    this.retryTimer = setTimeout(() => this.flush(), GAP_PROBE_MS);
    // Told before the batch goes out, so that the notices it has published come ahead of its frames (and into the gap).
    this.onGap.opened(error);
    for (const item of batch) if ("done" in item) item.done(false);
  }

  /** One try to write the open gap (its markers, then the kept catalog writes); still locked: try again later. */
  private closeGap(): void {
    const gap = this.gap!;
    const batch: Pending[] = gap.counts.markers().map((entry) => ({ entry, done: () => {} }));
    for (const [key, change] of gap.changes) batch.push({ change, key });
    try {
      this.commit(batch);
    } catch (error) {
      if (isBusy(error)) this.retryTimer = setTimeout(() => this.flush(), GAP_PROBE_MS);
      else this.fail(error);
      return;
    }
    this.gap = null;
    this.onGap.closed();
  }

  /** Recording gives up for good: nothing pending is kept, `onFailure` hears about it once. */
  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.gap = null;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.onFailure(error);
  }
}
