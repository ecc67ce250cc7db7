/**
 * The `workspace_registrations` table: the workspaces a daemon bound to a primary workspace serves
 * again after a restart. Rows are read and changed through `Store` (its read and change wrappers
 * answer 503 `store_unavailable` when the database cannot be had), except the one read at the
 * core's build, `peekRegistrations`.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "./db-file.ts";
import type { MirrorRow } from "./registration-mirror.ts";

export interface RegistrationRow {
  /** `workspaceId(path)`. */
  readonly id: string;
  /** Canonical absolute path, as it was registered. */
  readonly path: string;
  readonly displayName: string | null;
  /** Epoch ms. */
  readonly createdAt: number;
}

interface RawRow {
  id: string;
  path: string;
  display_name: string | null;
  created_at: number;
}

/** A primary workspace's registrations, oldest first. */
export function listRegistrations(db: Database, primary: string): RegistrationRow[] {
  const rows = db.query("SELECT id, path, display_name, created_at FROM workspace_registrations WHERE primary_workspace = ? ORDER BY created_at, id").all(primary) as RawRow[];
  return rows.map((r) => ({ id: r.id, path: r.path, displayName: r.display_name, createdAt: r.created_at }));
}

/** Every registration of every primary workspace, as the mirror holds them (`registration-mirror.ts`), oldest first. */
export function listAllRegistrations(db: Database): MirrorRow[] {
  const rows = db.query("SELECT primary_workspace, id, path, display_name FROM workspace_registrations ORDER BY created_at, id").all() as (Omit<RawRow, "created_at"> & { primary_workspace: string })[];
  return rows.map((r) => ({ primary: r.primary_workspace, id: r.id, path: r.path, displayName: r.display_name }));
}

/** Adds a registration unless one with its id exists; true when added. */
export function addRegistration(db: Database, primary: string, row: RegistrationRow): boolean {
  const result = db
    .query("INSERT OR IGNORE INTO workspace_registrations (primary_workspace, id, path, display_name, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(primary, row.id, row.path, row.displayName, row.createdAt);
  return result.changes > 0;
}

/** Sets a registration's display name (null: none); true when it exists. */
export function renameRegistration(db: Database, primary: string, id: string, displayName: string | null): boolean {
  return db.query("UPDATE workspace_registrations SET display_name = ? WHERE primary_workspace = ? AND id = ?").run(displayName, primary, id).changes > 0;
}

/** Removes a registration; true when it existed. */
export function removeRegistration(db: Database, primary: string, id: string): boolean {
  return db.query("DELETE FROM workspace_registrations WHERE primary_workspace = ? AND id = ?").run(primary, id).changes > 0;
}

/**
 * The registrations as `svc.db` holds them now, read on a connection of its own, for reading only:
 * the core's build reads them so without opening the store, which would take the data dir's lock
 * for the daemon's life (`data-dir-lock.ts`) before anything else needs it. `primary`'s, and every
 * primary's (for the mirror). None while the file or the table does not exist yet. Throws what
 * SQLite throws.
 */
export function peekRegistrations(dataDir: string, primary: string): { rows: RegistrationRow[]; all: MirrorRow[] } {
  const path = join(dataDir, DB_FILE);
  if (!existsSync(path)) return { rows: [], all: [] };
  const db = new Database(path, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 1000");
    const table = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'workspace_registrations'").get();
    return table === null ? { rows: [], all: [] } : { rows: listRegistrations(db, primary), all: listAllRegistrations(db) };
  } finally {
    db.close(false);
  }
}
