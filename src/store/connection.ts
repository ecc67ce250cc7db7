/**
 * The store's connection to svc.db and what works on it (`Open`). It is opened on first use, for
 * reading only when the database cannot be written (database.ts, `readOnlyBecause`); the data dir's
 * lock is taken at the first open and held until the store closes. `STORE_IDLE_CLOSE_MS` after its
 * last use, with nothing pending on it (no journal batch, no lock wait, no compaction), the
 * connection is closed (SQLite's page cache, statements and schema go with it) and the next use
 * opens it again: an idle daemon pays nothing for it.
 */
import type { Database } from "bun:sqlite";
import { Catalog } from "./catalog.ts";
import { Compactor } from "./compactor.ts";
import { lockDataDir, type DataDirLock } from "./data-dir-lock.ts";
import { openDatabase, openForReading, readOnlyBecause } from "./database.ts";
import { JournalReader } from "./journal-reader.ts";
import { JournalWriter, type GapListener } from "./journal-writer.ts";
import { sealRegistrationMirror } from "./registration-mirror.ts";

/**
 * How long the database stays open after its last use. Reopening costs about a millisecond (open,
 * pragmas, schema check, statements); an open connection keeps its page cache, prepared statements
 * and parsed schema resident.
 */
export const STORE_IDLE_CLOSE_MS = 10_000;

/** The open database and what works on it. */
export interface Open {
  readonly db: Database;
  readonly catalog: Catalog;
  readonly reader: JournalReader;
  readonly writer: JournalWriter;
  readonly compactor: Compactor;
  /** Why the database is open for reading only (recording is then degraded `read_only`), or null. */
  readonly readOnly: string | null;
}

/** What the writer of each opened database tells the store: a failed write, and a gap opening and closing. */
export interface WriterEvents extends GapListener {
  readonly failed: (error: unknown) => void;
}

export class Connection {
  /** Null until first needed, and while closed for being idle. */
  private opened: Open | null = null;
  /** Taken at the first open, held across idle closes, released by `shut(true)`. */
  private lock: DataDirLock | null = null;
  /** `performance.now()` of the database's last use, and the timer that closes it once idle. */
  private lastUsed = 0;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly idleCloseMs: number,
    private readonly events: WriterEvents,
  ) {}

  /** The open database, or null. */
  get current(): Open | null {
    return this.opened;
  }

  /** Whether the data dir's lock is held (an SQLITE_BUSY met by an open is then another process's, not another daemon's). */
  get locked(): boolean {
    return this.lock !== null;
  }

  /** Opens the database; throws what the open met (SQLITE_BUSY: another process's lock; anything else: it cannot be had). */
  open(): Open {
    const readOnly = readOnlyBecause(this.dataDir);
    this.lock ??= lockDataDir(this.dataDir, readOnly !== null);
    const db = readOnly === null ? openDatabase(this.dataDir) : openForReading(this.dataDir, readOnly);
    const writer = new JournalWriter(db, this.events.failed, this.events);
    this.opened = { db, catalog: new Catalog(db), reader: new JournalReader(db), writer, compactor: new Compactor(db), readOnly };
    return this.opened;
  }

  /** Notes a use of the open database and makes sure the idle close is armed. */
  used(): void {
    this.lastUsed = performance.now();
    this.idleTimer ??= this.armIdleClose(this.idleCloseMs);
  }

  /** Closes the database now (the next use opens it again); `releaseLock`: the data dir's lock goes too. */
  shut(releaseLock: boolean): void {
    const open = this.opened;
    this.opened = null;
    open?.compactor.stop();
    open?.db.close(false);
    if (!releaseLock) return;
    this.lock?.release();
    this.lock = null;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private armIdleClose(delayMs: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => this.closeIfIdle(), delayMs);
    // Never what keeps the process alive.
    timer.unref();
    return timer;
  }

  /** Closes the connection when it went unused for `idleCloseMs` and nothing is pending on it; else looks again later. */
  private closeIfIdle(): void {
    this.idleTimer = null;
    const open = this.opened;
    if (open === null) return;
    const idleFor = performance.now() - this.lastUsed;
    if (idleFor < this.idleCloseMs || open.writer.pendingCount > 0 || open.writer.waiting || open.compactor.running) {
      this.idleTimer = this.armIdleClose(Math.max(this.idleCloseMs - idleFor, 10));
      return;
    }
    this.opened = null;
    open.db.close(false);
    // The registrations' mirror names the database as the close left it (registration-mirror.ts).
    sealRegistrationMirror(this.dataDir);
  }
}
