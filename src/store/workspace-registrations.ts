/**
 * The `workspace_registrations` table: the workspaces a daemon bound to a primary workspace serves
 * again after a restart. Rows are read and changed only through `Store` (its read and change
 * wrappers answer 503 `store_unavailable` when the database cannot be had).
 */
import type { Database } from "bun:sqlite";

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
