/**
 * Opens `svc.db` under the data dir: first the schema version check (a database from a newer svc is
 * left exactly as it is: no WAL switch, no chmod), then WAL (readers never block the writer, and a commit is one
 * append to the log), `synchronous=NORMAL` (a commit survives a process crash, SIGKILL included;
 * only a power loss may take the last commits back), a short busy timeout (another process, a backup or
 * a sqlite3 shell, may hold the write lock), a small memory footprint (below), then the schema
 * migrations.
 */
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { SchemaTooNewError, SCHEMA_VERSION, migrate, schemaVersion } from "./migrations.ts";

export const DB_FILE = "svc.db";
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
