/**
 * Opens `svc.db` under the data dir: first the schema version check (a database from a newer svc is
 * left exactly as it is: no WAL switch, no chmod), then WAL (readers never block the writer, and a commit is one
 * append to the log), `synchronous=NORMAL` (a commit survives a process crash, SIGKILL included;
 * only a power loss may take the last commits back), a short busy timeout (another process, a backup or
 * a sqlite3 shell, may hold the write lock), a small memory footprint (below), then the schema
 * migrations.
 *
 * A database the user made read-only (no write bit in its mode, a data dir that cannot be written,
 * a read-only file system) is opened for reading only (`openForReading`): it is never chmod-ed back
 * to writable, and its history is still served.
 */
import { constants, Database } from "bun:sqlite";
import { accessSync, chmodSync, constants as fs, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "./db-file.ts";
import { SchemaTooNewError, SCHEMA_VERSION, migrate, schemaVersion } from "./migrations.ts";

export { DB_FILE };
/**
 * How long a statement waits inside SQLite for another connection's lock before failing with
 * SQLITE_BUSY. That wait blocks the event loop, so it is short: the journal writer waits longer on
 * timers instead (see journal-writer.ts), and a client's catalog change answers 503 at once.
 */
export const BUSY_TIMEOUT_MS = 50;

/** What the write-ahead log is truncated to after a checkpoint (see journal_size_limit). */
export const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Page cache bound, in KiB (SQLite's negative `cache_size`). The default (2 MB) filled by one list or
 * load stays resident for the daemon's life; reads here are a few index pages, and the OS page cache
 * holds the file anyway. Overflow: pages are evicted and re-read from the file.
 */
export const PAGE_CACHE_KIB = 256;

/** A database that can be read but is older than this svc: migrating it would write. */
export class ReadOnlyMigrationError extends Error {
  override readonly name = "ReadOnlyMigrationError";
  constructor(
    readonly found: number,
    readOnly: string,
  ) {
    super(`svc.db has schema version ${found} and must be migrated to ${SCHEMA_VERSION} before it can be read, but ${readOnly}`);
  }
}

const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code;

/**
 * Why `svc.db` must be opened for reading only, or null when it may be written: its mode has no
 * write bit (root would write it anyway: the user's 0444 is honoured), it or its folder cannot be
 * written (EACCES, EROFS: SQLite needs the folder for the write-ahead log). Null too when there is
 * no file yet: there is nothing to read, and creating it shows whether the data dir works.
 */
export function readOnlyBecause(dataDir: string): string | null {
  const path = join(dataDir, DB_FILE);
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return null;
  }
  if ((mode & 0o222) === 0) return `svc.db's file mode (${(mode & 0o777).toString(8).padStart(4, "0")}) allows no writes`;
  for (const [target, what] of [
    [path, "svc.db"],
    [dataDir, "its data dir"],
  ] as const)
    try {
      accessSync(target, fs.W_OK);
    } catch (error) {
      return `${what} cannot be written (${String(errorCode(error) ?? error)})`;
    }
  return null;
}

/** A `file:` URI for SQLite, its path percent-encoded where a URI needs it. */
const fileUri = (path: string, query: string) => `file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?${query}`;

/**
 * Opens `svc.db` for reading only (`readOnly` says why it must be). A WAL database needs its `-shm`
 * file: when that neither exists nor can be created (a read-only file system) and no write-ahead log
 * holds anything, the file is opened as immutable (SQLite then takes no locks and reads no log);
 * with a log left behind, it cannot be read without losing what the log holds, and the open fails.
 * A schema older than this svc cannot be migrated: `ReadOnlyMigrationError`.
 */
export function openForReading(dataDir: string, readOnly: string): Database {
  const path = join(dataDir, DB_FILE);
  let db = new Database(fileUri(path, "mode=ro"), constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
  try {
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    let found: number;
    try {
      found = schemaVersion(db);
    } catch (error) {
      if (errorCode(error) !== "SQLITE_CANTOPEN" || walSize(path) > 0) throw error;
      db.close(false);
      db = new Database(fileUri(path, "immutable=1"), constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
      found = schemaVersion(db);
    }
    if (found > SCHEMA_VERSION) throw new SchemaTooNewError(found);
    if (found < SCHEMA_VERSION) throw new ReadOnlyMigrationError(found, readOnly);
    db.run(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
    db.run("PRAGMA mmap_size = 0");
    return db;
  } catch (err) {
    db.close(false);
    throw err;
  }
}

/** Bytes in `svc.db-wal` (0 when there is none). */
function walSize(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, DB_FILE);
  const db = new Database(path, { create: true, strict: true });
  try {
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Read-only check first: a newer schema is not ours to change in any way.
    const found = schemaVersion(db);
    if (found > SCHEMA_VERSION) throw new SchemaTooNewError(found);
    // Transcripts are private: owner only (SQLite gives the -wal and -shm files the same mode).
    chmodSync(path, 0o600);
    // Space freed by deleted sessions goes back to the file system (`Store.deleteSessions`). Takes
    // effect on a new database only, which is every svc.db: it is set before the first table. Only
    // then: on a database already set up it is a write, and a reopen (after an idle close) must not
    // write, so that another process's write lock is met by the journal writer, which waits it out
    // (or opens a gap) instead of failing the open for the daemon's life.
    if (found === 0) db.run("PRAGMA auto_vacuum = INCREMENTAL");
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    // A checkpoint that finds no reader in the way cuts the log back to this (bytes), so a burst of
    // writes does not keep its disk space for the daemon's lifetime.
    db.run(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    // Idle memory: a bounded page cache, no memory-mapped file, temp tables and sorts on disk.
    db.run(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
    db.run("PRAGMA mmap_size = 0");
    db.run("PRAGMA temp_store = FILE");
    migrate(db);
    return db;
  } catch (err) {
    db.close(false);
    throw err;
  }
}
