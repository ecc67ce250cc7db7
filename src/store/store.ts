/**
 * The daemon's persistence: one `svc.db` holding the session catalog and the event journal. Only
 * this folder touches SQLite.
 *
 * Recording never stands in the way of a live session. When the database cannot be opened (the data
 * dir is unwritable, the file is not a database, it comes from a newer svc), cannot be written (its
 * mode, its data dir or its file system is read-only: it is then opened for reading only) or a write
 * fails (disk full, I/O error), the store goes degraded: it records nothing more, releases every
 * pending event to its subscribers, and tells `onDegraded` once, so sessions can say so.
 *
 * History never answers as if it were empty when it cannot be read: while svc.db cannot be opened,
 * is found damaged, or waits for another process's lock, every read and client change answers 503
 * `store_unavailable` with a reason (store-errors.ts), never an empty list or a 404 for a session it
 * cannot see. A database that cannot be opened or is found damaged stays so for the daemon's life;
 * one that recording gave up on for another cause is still read (reopened after an idle close).
 *
 * Another process holding the write lock for longer than events may be held back degrades
 * recording only for as long as it holds it: the writer opens a gap (journal-writer.ts), the store
 * is degraded (and tells its listener, as transient) until the gap's markers are written, then it
 * is not any more (the listener hears `resumed`) and recording goes on. A later failure of either
 * kind degrades it again. The same holds when the lock is met at the open itself (a migration, the
 * switch to WAL): the open is tried again on a timer (`busyRetryDelay`), events published meanwhile
 * are counted into a gap and catalog writes kept (as the writer keeps them, and within the same
 * bounds), and once it opens the writer starts with that gap and writes it. Reads and client changes
 * meanwhile answer 503 `store_unavailable` (`reason: "locked"`, retryable, `Retry-After`).
 *
 * The database is opened on first use, not at boot, and closed again when idle (connection.ts).
 *
 * One daemon owns a data dir (`data-dir-lock.ts`): the first to open the database. A second daemon
 * on the same data dir keeps serving its own live sessions, but its store is degraded
 * (`unavailable`, naming the owner's pid) and never opens the database at all: it neither records
 * nor reads (its history answers 503 `data_dir_owned`), so it cannot list, restore, close, archive
 * or delete a session the owner runs.
 *
 * A client's change to the catalog (archive, delete) that fails fails that request only (503
 * `store_unavailable`); it never stops recording, and it is still tried while journaling is
 * degraded, so deleting sessions can free a full disk.
 */
import type { Database } from "bun:sqlite";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Catalog, CatalogKey, CatalogRow, NewSession, PersistedState, SourceFilter } from "./catalog.ts";
import { Connection, STORE_IDLE_CLOSE_MS, type Open } from "./connection.ts";
import type { JournalRecord } from "./journal-reader.ts";
import { isBusy, type JournalEntry } from "./journal-writer.ts";
import { OpenWait } from "./open-wait.ts";
import { damagedAs500, describe, historyUnavailable, openFailure, readFailure, type HistoryUnavailable } from "./store-errors.ts";
import { dropRegistrationMirror, sealRegistrationMirror, writeRegistrationMirror } from "./registration-mirror.ts";
import { addRegistration, listAllRegistrations, listRegistrations, removeRegistration, renameRegistration, type RegistrationRow } from "./workspace-registrations.ts";

export type { CatalogKey, CatalogRow, HistoryUnavailable, JournalEntry, JournalRecord, PersistedState, RegistrationRow, SourceFilter };
export { STORE_IDLE_CLOSE_MS } from "./connection.ts";
export { STORE_LOCKED_RETRY_AFTER_SECONDS } from "./store-errors.ts";

export interface RecordingDegraded {
  /** `unavailable`: the database could not be opened; `read_only`: it can only be read; `write_failed`: a write failed. */
  readonly reason: "unavailable" | "read_only" | "write_failed";
  readonly error: string;
  readonly since: number;
  /** Recording resumes by itself once another process releases the database's lock. */
  readonly transient: boolean;
}

/** Who hears about recording stopping and starting again. */
export interface RecordingListener {
  /** Recording stopped: for the daemon's life, or (`transient`) until another process releases the database's lock. */
  readonly degraded: (status: RecordingDegraded, transient: boolean) => void;
  /** Recording works again after a transient stop (the gap's markers are written). */
  readonly resumed: () => void;
}

export interface StoreOptions {
  readonly now?: () => number;
  /** How long the database stays open unused (default `STORE_IDLE_CLOSE_MS`; tests shorten it). */
  readonly idleCloseMs?: number;
  /** Told when recording stops and starts again (see `listen`). */
  readonly listener?: RecordingListener;
}

export class Store {
  private degradedStatus: RecordingDegraded | null = null;
  /** True while `degradedStatus` stands for a gap the writer will write once the lock goes (recording goes on, counting). */
  private gapOpen = false;
  /** Set for the daemon's life once the database could not be opened or SQLite found it damaged: history answers 503. */
  private unreadable: HistoryUnavailable | null = null;
  /** Opened when first needed: an idle daemon never opens the database (no boot time, no memory). */
  private readonly connection: Connection;
  private closed = false;
  /** Set when a stop marker could not be written: the others are not tried. */
  private markerFailed = false;
  /** While the open waits out another process's lock (null otherwise). */
  private openWait: OpenWait | null = null;
  private readonly now: () => number;
  private listener: RecordingListener | null;

  /** A store for `svc.db` under `dataDir`, opened (and created) on first use. Never throws. */
  constructor(
    private readonly dataDir: string,
    options: StoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.listener = options.listener ?? null;
    this.connection = new Connection(dataDir, options.idleCloseMs ?? STORE_IDLE_CLOSE_MS, {
      failed: (error) => this.degrade("write_failed", error),
      opened: (error) => this.gapOpened(error),
      closed: () => this.gapClosed(),
    });
  }

  /** Null while recording works (or has not been tried yet). */
  get degraded(): RecordingDegraded | null {
    return this.degradedStatus;
  }

  /** Why history reads and catalog changes answer 503 now (not counting a moment's lock met by one read), or null. */
  get unavailable(): HistoryUnavailable | null {
    if (this.unreadable !== null) return this.unreadable;
    if (this.openWait !== null && this.degradedStatus !== null) return { reason: "locked", error: this.degradedStatus.error, since: this.degradedStatus.since };
    return null;
  }

  /**
   * Whether recording's own catalog writes (a rename, a session started or ended) are stored: now,
   * or once another process's lock goes. False while recording is degraded for the daemon's life (or
   * the store is closed): a live change stands, but nothing of it reaches the catalog.
   */
  get storesCatalogChanges(): boolean {
    return !this.closed && (this.degradedStatus === null || this.gapOpen);
  }

  /** Sets who hears about recording stopping and starting again (the session manager, once it exists). */
  listen(listener: RecordingListener): void {
    this.listener = listener;
  }

  /**
   * Journals `entry`; `done(true)` runs once it is committed, `done(false)` at once while recording
   * is degraded (counted into the gap while the open waits out a lock).
   */
  record(entry: JournalEntry, done: (recorded: boolean) => void): void {
    const open = this.writable();
    if (open !== null) return open.writer.append(entry, done);
    if (this.openWait !== null && !this.openWait.count(entry)) this.giveUpOpen(new Error("too many sessions published while the database was locked"));
    done(false);
  }

  /**
   * Journals the notice that recording stopped, which a session's bus released ahead of the events
   * recording gave up on (it took the id of the first, and they moved up by one; event-bus.ts), so
   * that transcript and export show where recording stopped. While recording is paused for a lock it
   * is counted into the gap, in front of what it stands before; once recording has stopped it is
   * tried once, directly (a failed batch or a held lock need not mean this small row fails too).
   * When even that fails (a full disk, the data dir owned by another daemon) the journal just ends.
   */
  recordNotice(entry: JournalEntry): void {
    if (this.closed) return;
    if (this.openWait !== null) {
      if (!this.openWait.countAhead(entry)) this.giveUpOpen(new Error("too many sessions published while the database was locked"));
      return;
    }
    if (this.degradedStatus === null) return this.record(entry, () => {});
    if (this.gapOpen) return this.connection.current?.writer.appendAhead(entry);
    // Only into a journal the catalog knows (a session started after the failure has no row), and
    // not again once a marker failed: each try may wait out the busy timeout.
    const open = this.markerFailed ? null : this.readable();
    if (open === null || open.readOnly !== null) return;
    try {
      if (open.catalog.get(entry.sessionId) === null) return;
    } catch {
      this.markerFailed = true;
      return;
    }
    this.markerFailed = !open.writer.writeMarker(entry);
  }

  sessionStarted(row: NewSession): void {
    this.write((catalog) => catalog.create(row));
  }

  metadataChanged(id: string, displayName: string | null, metadata: Record<string, unknown>): void {
    const now = this.now();
    // Keyed: a rename sets only the name and metadata, so while a gap is open the latest stands for all.
    this.write((catalog) => catalog.updateMetadata(id, displayName, metadata, now), `metadata:${id}`);
  }

  /** A worktree reset handed `id`'s checkout to the session `by` (`sessions/worktree-reset.ts`). */
  sessionSuperseded(id: string, by: string): void {
    const now = this.now();
    this.write((catalog) => catalog.markSuperseded(id, by, now));
  }

  sessionEnded(id: string, state: Exclude<PersistedState, "live">): void {
    const now = this.now();
    this.write((catalog) => catalog.markEnded(id, state, now));
  }

  /**
   * Archives or unarchives sessions, in one transaction; returns the ids that exist. 503
   * `store_unavailable` while the database cannot be written.
   */
  setArchived(ids: readonly string[], archived: boolean): Set<string> {
    return this.change((open) => new Set(ids.filter((id) => open.catalog.setArchived(id, archived))));
  }

  /**
   * Deletes sessions, in one transaction: they are gone from the catalog, and their journals from
   * every read, at once. The rows and the disk space they held are reclaimed afterwards, a bounded
   * step per event-loop turn (compactor.ts), so a large journal never stalls the daemon. Returns the
   * ids that existed.
   */
  deleteSessions(ids: readonly string[]): Set<string> {
    // A session closed a moment ago may still have its last events pending: they go first (and
    // while they wait for another connection's lock, nothing is deleted, so none lands after).
    this.flush();
    if (this.connection.current?.writer.waiting) throw historyUnavailable({ reason: "locked", error: "another process holds the database's write lock", since: this.now() }, "changed");
    const removed = this.change((open) => new Set(ids.filter((id) => open.catalog.remove(id))));
    if (removed.size > 0) this.connection.current?.compactor.start();
    return removed;
  }

  /** Runs compaction to its end now (tests, benches). */
  compact(): void {
    this.readable()?.compactor.finish();
  }

  /*
   * The reads below answer 503 `store_unavailable` (store-errors.ts) whenever the database cannot be
   * read: never an empty answer that would pass for "no such session".
   */

  /** The catalog row, or null when the catalog has none. */
  session(id: string): CatalogRow | null {
    return this.read((open) => open.catalog.get(id));
  }

  sessions(workspace: string, archived: boolean, limit: number, after: CatalogKey | null, source: SourceFilter | null = null): CatalogRow[] {
    return this.read((open) => open.catalog.list(workspace, archived, limit, after, source));
  }

  /** Catalog counts of a workspace's sessions. */
  sessionCounts(workspace: string): { active: number; archived: number } {
    return this.read((open) => open.catalog.count(workspace));
  }

  /** The persistent workspace registrations of the daemon bound to `primary` (workspace-registrations.ts). */
  registrations(primary: string): RegistrationRow[] {
    return this.read((open) => listRegistrations(open.db, primary));
  }

  /** Records a persistent registration (one transaction); false when one with its id exists. */
  addRegistration(primary: string, row: RegistrationRow): boolean {
    return this.changeRegistrations((open) => addRegistration(open.db, primary, row));
  }

  /** Sets a persistent registration's display name; false when there is none with `id`. */
  renameRegistration(primary: string, id: string, displayName: string | null): boolean {
    return this.changeRegistrations((open) => renameRegistration(open.db, primary, id, displayName));
  }

  /** Forgets a persistent registration; false when there was none with `id`. */
  removeRegistration(primary: string, id: string): boolean {
    return this.changeRegistrations((open) => removeRegistration(open.db, primary, id));
  }

  /**
   * A change to the registrations, then their mirror for the front door (`registration-mirror.ts`)
   * rewritten from the table: also after a change that failed, which may have been committed.
   */
  private changeRegistrations(action: (open: Open) => boolean): boolean {
    try {
      return this.change(action);
    } finally {
      this.mirrorRegistrations();
    }
  }

  private mirrorRegistrations(): void {
    let rows;
    try {
      rows = this.read((open) => listAllRegistrations(open.db));
    } catch {
      rows = null;
    }
    if (rows === null) dropRegistrationMirror(this.dataDir);
    else writeRegistrationMirror(this.dataDir, rows);
  }

  /** A read of the session organization tables (`session-organization.ts`). */
  readOrganization<T>(read: (db: Database) => T): T {
    return this.read((open) => read(open.db));
  }

  /** A change to the session organization (one transaction, `session-organization.ts`); a DaemonError it throws rolls it back and is answered as it is. */
  changeOrganization<T>(change: (db: Database) => T): T {
    let refused: DaemonError | null = null;
    try {
      return this.change((open) => {
        try {
          return change(open.db);
        } catch (error) {
          if (error instanceof DaemonError) refused = error;
          throw error;
        }
      });
    } catch (error) {
      throw refused ?? error;
    }
  }

  /** Up to `limit` records of a session after the position `after` (0: from the start). */
  journal(sessionId: string, after: number, limit: number): JournalRecord[] {
    return damagedAs500(sessionId, () => this.read((open) => open.reader.after(sessionId, after, limit)));
  }

  /** The characters of a session's whole journal (see `JournalReader.chars`). */
  journalChars(sessionId: string): number {
    return this.read((open) => open.reader.chars(sessionId));
  }

  /** A page of a session's records within the bounds (see `JournalReader.pageAfter`). */
  journalPage(sessionId: string, after: number, limit: number, maxBytes: number): { records: JournalRecord[]; hasMore: boolean } {
    return damagedAs500(sessionId, () => this.read((open) => open.reader.pageAfter(sessionId, after, limit, maxBytes)));
  }

  /** The newest records of a session within the bounds, those before the position `before` if given (see `JournalReader.newest`). */
  recent(sessionId: string, maxEvents: number, maxBytes: number, before: number | null = null): { records: JournalRecord[]; omitted: number } {
    return damagedAs500(sessionId, () => this.read((open) => open.reader.newest(sessionId, maxEvents, maxBytes, before)));
  }

  /** True while the database connection is open (it closes when idle; tests). */
  get isOpen(): boolean {
    return this.connection.current !== null;
  }

  /** Commits whatever is pending now (shutdown; tests). */
  flush(): void {
    this.connection.current?.writer.flush();
  }

  /** Flushes and closes the database; recording stops (events are then released at once). Idempotent. */
  close(): void {
    if (this.closed) return;
    // Last commit, without waiting out a lock: then recording stops.
    this.connection.current?.writer.stop();
    this.closed = true;
    this.endOpenWait();
    const healthy = this.unreadable === null;
    this.connection.shut(true);
    // The registrations' mirror names the database as the close left it; not a damaged one, whose
    // registrations the next core cannot read (registration-mirror.ts).
    if (healthy) sealRegistrationMirror(this.dataDir);
  }

  /** Runs a read on the open database; 503 `store_unavailable` when it cannot be had or SQLite fails the read. */
  private read<T>(read: (open: Open) => T): T {
    const open = this.forReading("read");
    try {
      return read(open);
    } catch (error) {
      const failure = readFailure(error);
      if (failure === null) throw error;
      const why: HistoryUnavailable = { reason: failure, error: describe(error), since: this.now() };
      if (failure === "damaged") this.foundDamaged(why);
      throw historyUnavailable(why, "read");
    }
  }

  /** The open database for a read or a client's change, or 503 `store_unavailable` saying why it cannot be had. */
  private forReading(action: "read" | "changed"): Open {
    const open = this.readable();
    if (open !== null) return open;
    const why: HistoryUnavailable = this.closed
      ? { reason: "closed", error: "the store is closed", since: this.now() }
      : // Not unreadable and not open: the open met another process's lock (waiting it out, or just now).
        (this.unavailable ?? { reason: "locked", error: "another process holds the database's lock", since: this.now() });
    throw historyUnavailable(why, action);
  }

  /** SQLite found the open database malformed: history answers 503 `damaged`, and recording stops, for the daemon's life. */
  private foundDamaged(why: HistoryUnavailable): void {
    this.unreadable ??= why;
    this.degrade("unavailable", new Error(why.error));
    this.connection.shut(false);
  }

  /**
   * The database for reading (opened on first use, and again after an idle close), or null when it
   * cannot be (unreadable, closed) or not now (another process's lock; `openWait` while waiting).
   */
  private readable(): Open | null {
    if (this.closed || this.unreadable !== null) return null;
    if (this.connection.current === null && this.openWait === null) this.open();
    const open = this.connection.current;
    if (open !== null) this.connection.used();
    return open;
  }

  /**
   * Opens the database, for reading only when it cannot be written (`readOnlyBecause`). Another
   * process's lock met on the way (SQLITE_BUSY) starts or continues the wait (`waitToOpen`) while
   * recording goes on; once recording has stopped for good it only fails this open. Any other
   * failure leaves history unreadable and recording degraded, for the daemon's life.
   */
  private open(): void {
    let open: Open;
    try {
      open = this.connection.open();
    } catch (error) {
      if (isBusy(error) && this.connection.locked) {
        if (this.degradedStatus === null || this.gapOpen) this.waitToOpen(error);
        return;
      }
      this.endOpenWait();
      this.connection.shut(true);
      this.unreadable = { reason: openFailure(error), error: describe(error), since: this.now() };
      this.degrade("unavailable", error);
      return;
    }
    if (open.readOnly !== null) {
      // Read, never written: what a wait for a lock kept cannot be written either.
      this.endOpenWait();
      this.degrade("read_only", `${open.readOnly}: its history is served, nothing new is recorded`);
      return;
    }
    const writer = open.writer;
    const wait = this.openWait;
    if (wait !== null) {
      this.openWait = null;
      // What was missed while the lock held the open goes in first, before anything recorded from now on.
      const { gap, changes } = wait.handOver(open.catalog);
      writer.startWithGap(gap, changes);
    }
    // Whatever a previous run left to compact (a restart mid-way) goes on now.
    open.compactor.start();
  }

  /** The open met another process's lock: degraded (transient) until a later try opens; tried again on a timer. */
  private waitToOpen(error: unknown): void {
    if (this.openWait === null) {
      this.openWait = new OpenWait();
      this.gapOpen = true;
      this.degradedStatus = {
        reason: "unavailable",
        error: `${describe(error)}: another process holds the database's lock; events are not recorded until it is released, then recording resumes`,
        since: this.now(),
        transient: true,
      };
      this.listener?.degraded(this.degradedStatus, true);
    }
    const wait = this.openWait;
    wait.retry(() => {
      if (!this.closed && this.openWait === wait) this.open();
    });
  }

  /** The wait to open passed its bounds: recording stops for the daemon's life. */
  private giveUpOpen(error: unknown): void {
    this.endOpenWait();
    this.connection.shut(true);
    this.degrade("unavailable", error);
  }

  private endOpenWait(): void {
    this.openWait?.end();
    this.openWait = null;
  }

  /** The database for writing, or null while recording is degraded (then it is not even opened for it). */
  private writable(): Open | null {
    if (this.degradedStatus !== null && !this.gapOpen) return null;
    return this.readable();
  }

  /**
   * A client's change to the catalog: one transaction, or 503 when the database cannot be had, is
   * read-only, or the write fails. A failure here is that request's alone: recording goes on (or
   * stays as it was), unless SQLite finds the database damaged.
   */
  private change<T>(action: (open: Open) => T): T {
    const open = this.forReading("changed");
    if (open.readOnly !== null) throw historyUnavailable({ reason: "read_only", error: open.readOnly, since: this.now() }, "changed");
    try {
      return open.db.transaction(() => action(open)).immediate();
    } catch (error) {
      const failure = readFailure(error);
      if (failure === "locked" || failure === "damaged") {
        const why: HistoryUnavailable = { reason: failure, error: describe(error), since: this.now() };
        if (failure === "damaged") this.foundDamaged(why);
        throw historyUnavailable(why, "changed");
      }
      throw new DaemonError(503, "store_unavailable", "Session history cannot be changed: the write failed", {
        reason: "write_failed",
        retryable: false,
        hint: `${describe(error)}; nothing was changed, and recording goes on. Retry later (or free disk space).`,
      });
    }
  }

  /**
   * A catalog write of recording's own: through the writer, so a held lock delays it in order with
   * the journal. `key`: see `JournalWriter.change`.
   */
  private write(action: (catalog: Catalog) => void, key?: string): void {
    const open = this.writable();
    if (open !== null) return open.writer.change(() => action(open.catalog), key);
    if (this.openWait !== null && !this.openWait.keep(action, key)) this.giveUpOpen(new Error("too many session changes while the database was locked"));
  }

  private degrade(reason: RecordingDegraded["reason"], error: unknown): void {
    const wasGap = this.gapOpen;
    this.gapOpen = false;
    if (this.degradedStatus !== null && !wasGap) return;
    this.degradedStatus = { reason, error: describe(error), since: this.degradedStatus?.since ?? this.now(), transient: false };
    // Events still pending are tried once more and released; nothing is recorded after them.
    this.connection.current?.writer.stop();
    // Told even after a transient stop was announced (a gap, an open waiting for a lock): now it does not resume.
    this.listener?.degraded(this.degradedStatus, false);
  }

  /** The writer gave up holding events back for another process's lock: degraded until its gap is written. */
  private gapOpened(error: unknown): void {
    if (this.degradedStatus !== null) return;
    this.gapOpen = true;
    this.degradedStatus = {
      reason: "write_failed",
      error: `${describe(error)}: another process holds the database's write lock; events are not recorded until it is released, then recording resumes`,
      since: this.now(),
      transient: true,
    };
    this.listener?.degraded(this.degradedStatus, true);
  }

  /** The gap's markers are written: recording works again (the daemon-status issue goes). */
  private gapClosed(): void {
    if (!this.gapOpen) return;
    this.gapOpen = false;
    this.degradedStatus = null;
    this.listener?.resumed();
  }
}
