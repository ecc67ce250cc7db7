/**
 * A mirror of `svc.db`'s persistent workspace registrations in a small JSON file of the data dir,
 * so the front door can answer `/capabilities` truly before the core is built, without loading
 * SQLite (`server/boot-workspaces.ts`). The store rewrites it after every change to the table, the
 * core's build whenever it differs from the table it read; a write is atomic (a 0600 temp file,
 * renamed into place) and one that fails removes the mirror, so it is never older than the table.
 * It is not fsynced, nor are the table's commits (`synchronous = NORMAL`): a crash can leave an
 * empty or an earlier mirror, which either is unusable or names the database as it was then, and
 * so is refused if that changed (below).
 *
 * The mirror names the database it copies (`db`: svc.db's device, inode, size and modification
 * time when it was written, and its write-ahead log's when that holds anything; null when there was
 * no database), and is sealed again each time the store closes the database. A database deleted,
 * replaced or restored from another copy no longer matches, and the front door waits for the core;
 * so does one changed since by a daemon that did not close it (a crash), or by another client whose
 * commit is still in the log, until the core's build rewrites the mirror.
 *
 * Reading answers `absent` (no mirror: none written yet, or removed after a failed write),
 * `unusable` (not a regular file, past MAX_MIRROR_BYTES, not the shape below) or the rows of one
 * primary workspace with the database they copy. Node's fs only: the idle daemon loads this module.
 */
import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "./db-file.ts";

export const MIRROR_FILE = "workspace-registrations.json";
/**
 * Bound of the file read, in bytes: --max-workspaces (at most 256 by default) registrations of
 * a 4096-character path and a 768-byte name, JSON-escaped, fit several times over for one primary.
 */
export const MAX_MIRROR_BYTES = 4 * 1024 * 1024;

export interface MirrorRow {
  /** The primary workspace it was registered under (`svc.db`'s `primary_workspace`). */
  readonly primary: string;
  readonly id: string;
  readonly path: string;
  readonly displayName: string | null;
}

export type MirrorRead =
  | { readonly kind: "absent" }
  | { readonly kind: "unusable" }
  | { readonly kind: "rows"; readonly rows: readonly MirrorRow[]; /** `databaseIdentity` when written. */ readonly db: string | null };

const mirrorPath = (dataDir: string) => join(dataDir, MIRROR_FILE);

/** A file's device, inode, size and modification time (ns), or null when there is none; throws when it cannot be looked at. */
function fileIdentity(path: string): string | null {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/**
 * svc.db as the mirror names it, or null when there is none: its file's identity and its write-ahead
 * log's (`-wal`: the database runs in WAL mode, so a commit that is not checkpointed yet changes only
 * that file; a closed database has none, or an empty one). Throws when either cannot be looked at
 * (a mirror is then neither written nor trusted).
 */
export function databaseIdentity(dataDir: string): string | null {
  const db = fileIdentity(join(dataDir, DB_FILE));
  if (db === null) return null;
  const wal = fileIdentity(join(dataDir, `${DB_FILE}-wal`));
  return wal === null || wal.split(":")[2] === "0" ? db : `${db}/${wal}`;
}

/** The mirror's text for `rows` (in the table's order) copied from the database `db`. */
const render = (rows: readonly MirrorRow[], db: string | null) =>
  `${JSON.stringify({ v: 2, db, registrations: rows.map((r) => ({ primary: r.primary, id: r.id, path: r.path, displayName: r.displayName })) })}\n`;

/** The file's text, null when it is absent; throws `unusable` for one that cannot be trusted. */
function readText(dataDir: string): string | null {
  let fd: number;
  try {
    fd = openSync(mirrorPath(dataDir), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error("unusable");
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_MIRROR_BYTES) throw new Error("unusable");
    const buf = Buffer.alloc(stat.size);
    let n = 0;
    while (n < stat.size) {
      const got = readSync(fd, buf, n, stat.size - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function isRow(value: unknown): value is MirrorRow {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.primary === "string" && typeof r.id === "string" && typeof r.path === "string" && (r.displayName === null || typeof r.displayName === "string");
}

/** Every row of the mirror and the database it names, or null when it is absent; throws `unusable`. */
function readAll(dataDir: string): { rows: MirrorRow[]; db: string | null } | null {
  const text = readText(dataDir);
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error("unusable");
  }
  const { v, db, registrations } = (typeof doc === "object" && doc !== null ? doc : {}) as { v?: unknown; db?: unknown; registrations?: unknown };
  if (v !== 2 || !(db === null || typeof db === "string") || !Array.isArray(registrations) || !registrations.every(isRow)) throw new Error("unusable");
  return { rows: registrations, db };
}

/** The registrations of `primary` as the mirror holds them, oldest first, and the database they copy. */
export function readRegistrationMirror(dataDir: string, primary: string): MirrorRead {
  let all;
  try {
    all = readAll(dataDir);
  } catch {
    return { kind: "unusable" };
  }
  if (all === null) return { kind: "absent" };
  return { kind: "rows", rows: all.rows.filter((r) => r.primary === primary), db: all.db };
}

/** Removes the mirror (the boot answer then waits for the core). */
export function dropRegistrationMirror(dataDir: string): void {
  try {
    unlinkSync(mirrorPath(dataDir));
  } catch {
    // Absent already, or the data dir is unusable: then nothing can be read from it either.
  }
}

/**
 * Writes the mirror of every registration in the table (all primaries), naming the database as it
 * is now, unless it holds exactly that already. A write that fails removes the mirror instead (and
 * rethrows nothing: the mirror is a copy, and without it the front door waits for the core).
 */
export function writeRegistrationMirror(dataDir: string, rows: readonly MirrorRow[]): void {
  let text: string;
  try {
    text = render(rows, databaseIdentity(dataDir));
  } catch {
    // svc.db cannot be looked at: no mirror can name it.
    return dropRegistrationMirror(dataDir);
  }
  try {
    if (readText(dataDir) === text) return;
  } catch {
    // Unusable: replaced below.
  }
  const path = mirrorPath(dataDir);
  const temp = join(dataDir, `.${MIRROR_FILE}.${process.pid}.${crypto.randomUUID()}.tmp`);
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never created.
    }
    dropRegistrationMirror(dataDir);
  }
}

/**
 * Names the database as it is now in the mirror, its rows unchanged: called once the store has
 * closed svc.db, whose closing checkpoint and every write since the last mirror changed its size
 * or time. An absent or unusable mirror stays as it is (the core's next build writes one).
 */
export function sealRegistrationMirror(dataDir: string): void {
  let all;
  try {
    all = readAll(dataDir);
  } catch {
    return;
  }
  if (all !== null) writeRegistrationMirror(dataDir, all.rows);
}
