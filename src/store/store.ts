/**
 * The daemon's persistence: one `svc.db` holding the session catalog and the event journal. Only
 * this folder touches SQLite.
 *
 * Recording never stands in the way of a live session. When the database cannot be opened (the data
 * dir is unwritable, the file is not a database, it comes from a newer svc) or a write fails (disk
 * full, read-only, I/O error), the store goes degraded: it records nothing more, releases every
 * pending event to its subscribers, and tells `onDegraded` once, so sessions can say so. Reads
 * (list, transcript) keep answering from whatever could be opened.
 */
import type { Database } from "bun:sqlite";
import { Catalog, type CatalogKey, type CatalogRow, type NewSession, type PersistedState } from "./catalog.ts";
import { openDatabase } from "./database.ts";
import { JournalReader, type JournalRecord } from "./journal-reader.ts";
import { JournalWriter, type JournalEntry } from "./journal-writer.ts";

export type { CatalogKey, CatalogRow, JournalEntry, JournalRecord, PersistedState };

export interface RecordingDegraded {
  /** `unavailable`: the database could not be opened; `write_failed`: a write failed. */
  readonly reason: "unavailable" | "write_failed";
  readonly error: string;
  readonly since: number;
}

export interface StoreOptions {
  readonly now?: () => number;
  /** Called once, when recording stops. */
  readonly onDegraded?: (status: RecordingDegraded) => void;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Store {
  private degradedStatus: RecordingDegraded | null = null;
  private readonly db: Database | null;
  private readonly catalogTable: Catalog | null;
  private readonly reader: JournalReader | null;
  private readonly writer: JournalWriter | null;
  private readonly now: () => number;
  private onDegraded: ((status: RecordingDegraded) => void) | null;
  private closed = false;

  /** Opens (or creates) `svc.db` under `dataDir`; never throws: failure gives a degraded store. */
  static open(dataDir: string, options: StoreOptions = {}): Store {
    try {
      return new Store(openDatabase(dataDir), null, options);
    } catch (error) {
      return new Store(null, describe(error), options);
    }
  }

  private constructor(db: Database | null, openError: string | null, options: StoreOptions) {
    this.now = options.now ?? Date.now;
    this.onDegraded = options.onDegraded ?? null;
    this.db = db;
    this.catalogTable = db && new Catalog(db);
    this.reader = db && new JournalReader(db);
    this.writer = db && new JournalWriter(db, (error) => this.degrade("write_failed", error));
    if (openError !== null) this.degradedStatus = { reason: "unavailable", error: openError, since: this.now() };
  }

  /** Null while recording works. */
  get degraded(): RecordingDegraded | null {
    return this.degradedStatus;
  }

  /** Sets who hears about degradation (the session manager, once it exists). */
  listen(onDegraded: (status: RecordingDegraded) => void): void {
    this.onDegraded = onDegraded;
  }

  /** Journals `entry`; `durable` runs once it is committed, or at once while recording is degraded. */
  record(entry: JournalEntry, durable: () => void): void {
    if (this.writer === null || this.degradedStatus !== null || this.closed) durable();
    else this.writer.append(entry, durable);
  }

  sessionStarted(row: NewSession): void {
    this.write((catalog) => catalog.create(row));
  }

  metadataChanged(id: string, displayName: string | null, metadata: Record<string, unknown>): void {
    this.write((catalog) => catalog.updateMetadata(id, displayName, metadata, this.now()));
  }

  sessionEnded(id: string, state: Exclude<PersistedState, "live">): void {
    this.write((catalog) => catalog.markEnded(id, state, this.now()));
  }

  session(id: string): CatalogRow | null {
    return this.closed ? null : (this.catalogTable?.get(id) ?? null);
  }

  sessions(workspace: string, archived: boolean, limit: number, after: CatalogKey | null): CatalogRow[] {
    return this.closed ? [] : (this.catalogTable?.list(workspace, archived, limit, after) ?? []);
  }

  journal(sessionId: string, afterSeq: number, limit: number): JournalRecord[] {
    return this.closed ? [] : (this.reader?.after(sessionId, afterSeq, limit) ?? []);
  }

  /** Commits whatever is pending now (shutdown; tests). */
  flush(): void {
    this.writer?.flush();
  }

  /** Flushes and closes the database; recording stops (events are then released at once). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.db?.close(false);
  }

  private write(action: (catalog: Catalog) => void): void {
    if (this.catalogTable === null || this.degradedStatus !== null || this.closed) return;
    try {
      action(this.catalogTable);
    } catch (error) {
      this.degrade("write_failed", error);
    }
  }

  private degrade(reason: RecordingDegraded["reason"], error: unknown): void {
    if (this.degradedStatus !== null) return;
    this.degradedStatus = { reason, error: describe(error), since: this.now() };
    // Events still pending are tried once more and released; nothing is recorded after them.
    this.writer?.stop();
    this.onDegraded?.(this.degradedStatus);
  }
}
