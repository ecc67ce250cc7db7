/**
 * What the store answers when history cannot be had, and how it tells the causes apart. A history
 * read or a client's change to the catalog never answers an empty list or a 404 for a session it
 * cannot see: it answers 503 `store_unavailable` with a `reason`, and `Retry-After` only when the
 * cause goes by itself (`locked`: another process holds the database's lock).
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { DataDirLockedError } from "./data-dir-lock.ts";
import { ReadOnlyMigrationError } from "./database.ts";
import { CorruptChunkError } from "./journal-chunk.ts";
import { SchemaTooNewError } from "./migrations.ts";

/** Why history cannot be read or changed now. */
export interface HistoryUnavailable {
  /**
   * `locked`: another process holds the database's lock (retry soon); `damaged`: SQLite finds svc.db
   * malformed; `unreadable`: it cannot be opened or read otherwise; `data_dir_owned`: another svc
   * daemon owns the data dir; `schema_too_new`: a newer svc wrote it; `read_only`: it cannot be
   * written (changes), or cannot be migrated to be read; `closed`: the daemon is shutting down.
   */
  readonly reason: "locked" | "damaged" | "unreadable" | "data_dir_owned" | "schema_too_new" | "read_only" | "closed";
  readonly error: string;
  readonly since: number;
}

/** `Retry-After` (seconds) of a 503 answered while another process holds the database's lock (the open is tried again at least this often). */
export const STORE_LOCKED_RETRY_AFTER_SECONDS = 1;

export const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

const sqliteCode = (error: unknown): string | null => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : null;
};

/** What an SQLite error met while reading says of the database; null for an error that is not SQLite's. */
export function readFailure(error: unknown): "locked" | "damaged" | "unreadable" | null {
  const code = sqliteCode(error);
  if (code === null) return null;
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
  if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB")) return "damaged";
  return "unreadable";
}

/** Why an open that failed (not for a lock) leaves history unreadable. */
export function openFailure(error: unknown): HistoryUnavailable["reason"] {
  if (error instanceof DataDirLockedError) return "data_dir_owned";
  if (error instanceof SchemaTooNewError) return "schema_too_new";
  if (error instanceof ReadOnlyMigrationError) return "read_only";
  return readFailure(error) === "damaged" ? "damaged" : "unreadable";
}

const WHAT: Record<HistoryUnavailable["reason"], string> = {
  locked: "the database is locked by another process",
  damaged: "svc.db is damaged",
  unreadable: "svc.db could not be opened or read",
  data_dir_owned: "another svc daemon owns the data dir",
  schema_too_new: "svc.db was written by a newer svc",
  read_only: "svc.db is read-only",
  closed: "the daemon is shutting down",
};

const HINT: Record<HistoryUnavailable["reason"], string> = {
  locked: "retry in a moment: the daemon reads it as soon as the lock goes",
  damaged: "restore svc.db from a backup, or move it aside and restart svc to start an empty history",
  unreadable: "check the data dir and svc.db, then restart svc",
  data_dir_owned: "use that daemon, or give this one another data dir (SVC_HOME)",
  schema_too_new: "run the newer svc",
  read_only: "make svc.db and its data dir writable, then restart svc",
  closed: "the daemon is stopping",
};

/** 503 `store_unavailable`: history cannot be `read` or `changed` now, with the reason (and `Retry-After` when it goes by itself). */
export function historyUnavailable(why: HistoryUnavailable, action: "read" | "changed"): DaemonError {
  const transient = why.reason === "locked";
  return new DaemonError(
    503,
    "store_unavailable",
    `Session history cannot be ${action}: ${WHAT[why.reason]}`,
    { reason: why.reason, retryable: transient, hint: `${action === "changed" ? "nothing was changed; " : ""}${why.error}; ${HINT[why.reason]}` },
    transient ? STORE_LOCKED_RETRY_AFTER_SECONDS : undefined,
  );
}

/**
 * Runs a journal read; a chunk that cannot be decoded (svc.db was changed or damaged outside svc)
 * fails it as a 500 `journal_damaged` naming the session and the chunk, never as a bare crash.
 */
export function damagedAs500<T>(sessionId: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof CorruptChunkError)) throw error;
    throw new DaemonError(500, "journal_damaged", "The session's recorded history is damaged and cannot be read", {
      sessionId,
      chunk: error.seq,
      hint: `${error.message}; svc.db was changed outside svc or the disk damaged it`,
    });
  }
}
