/**
 * Session organization in the catalog (migration 8): a workspace's session groups, and per session
 * its group, color, pin and sort order. Rows are read and changed through `Store` (its read and
 * change wrappers answer 503 `store_unavailable` when the database cannot be had). Checks of the
 * values (names, colors, bounds) are the caller's (`sessions/organization.ts`); this file only
 * stores and orders.
 *
 * The organized list orders a workspace's sessions pinned first, then by sort order (sessions
 * without one after those with one), then most recently updated first, then by id; its keyset is
 * that tuple, every member ascending (`pinned` as 0/1, the update time negated), so one row-value
 * comparison pages it.
 */
import type { Database } from "bun:sqlite";
import { fromRaw, type CatalogRow, type RawRow, type SourceFilter } from "./catalog.ts";

export interface GroupRow {
  readonly id: string;
  readonly name: string;
  readonly color: string;
  readonly order: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A session's organization; every member null when it has none. */
export interface SessionOrganizationRow {
  readonly groupId: string | null;
  readonly color: string | null;
  readonly pinnedAt: number | null;
  readonly sortOrder: number | null;
  readonly organizedAt: number | null;
}

/** A change to a session's organization: an absent member is left as it is. */
export interface OrganizationChange {
  readonly groupId?: string | null;
  readonly color?: string | null;
  readonly pinned?: boolean;
  readonly sortOrder?: number | null;
}

/** Where a page of the organized list starts: after this key (see the header). */
export interface OrganizedKey {
  readonly unpinned: 0 | 1;
  readonly order: number;
  readonly negUpdated: number;
  readonly id: string;
}

/** Which sessions the organized list keeps. */
export type OrganizedFilter = { kind: "all" } | { kind: "pinned" } | { kind: "ungrouped" } | { kind: "group"; groupId: string };

interface RawGroup {
  id: string;
  name: string;
  color: string;
  sort_order: number;
  created_at: number;
  updated_at: number;
}

const group = (r: RawGroup): GroupRow => ({ id: r.id, name: r.name, color: r.color, order: r.sort_order, createdAt: r.created_at, updatedAt: r.updated_at });

/** The sort order given to sessions that have none (after every real one). */
export const NO_ORDER = Number.MAX_SAFE_INTEGER;

/** A workspace's groups by their order, then name. */
export function listGroups(db: Database, workspace: string): GroupRow[] {
  return (db.query("SELECT * FROM session_groups WHERE workspace = ? ORDER BY sort_order, name COLLATE NOCASE, id").all(workspace) as RawGroup[]).map(group);
}

export function getGroup(db: Database, workspace: string, id: string): GroupRow | null {
  const raw = db.query("SELECT * FROM session_groups WHERE workspace = ? AND id = ?").get(workspace, id) as RawGroup | null;
  return raw ? group(raw) : null;
}

export function countGroups(db: Database, workspace: string): number {
  return (db.query("SELECT COUNT(*) AS n FROM session_groups WHERE workspace = ?").get(workspace) as { n: number }).n;
}

/** The group of `workspace` named `name` (case-insensitively), other than `exceptId`, or null. */
export function groupNamed(db: Database, workspace: string, name: string, exceptId: string | null): GroupRow | null {
  const raw = db.query("SELECT * FROM session_groups WHERE workspace = ? AND lower(name) = lower(?) AND id IS NOT ?").get(workspace, name, exceptId) as RawGroup | null;
  return raw ? group(raw) : null;
}

/** The next group order of a workspace (one past the largest). */
export function nextGroupOrder(db: Database, workspace: string): number {
  const { top } = db.query("SELECT MAX(sort_order) AS top FROM session_groups WHERE workspace = ?").get(workspace) as { top: number | null };
  return top === null ? 0 : Math.min(top + 1, NO_ORDER);
}

export function insertGroup(db: Database, workspace: string, row: GroupRow): void {
  db.query("INSERT INTO session_groups (workspace, id, name, color, sort_order, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
    workspace,
    row.id,
    row.name,
    row.color,
    row.order,
    row.createdAt,
    row.updatedAt,
  );
}

export function updateGroup(db: Database, workspace: string, row: GroupRow): void {
  db.query("UPDATE session_groups SET name = ?, color = ?, sort_order = ?, updated_at = ? WHERE workspace = ? AND id = ?").run(row.name, row.color, row.order, row.updatedAt, workspace, row.id);
}

/** Deletes a group and ungroups its sessions; true when it existed. */
export function deleteGroup(db: Database, workspace: string, id: string, now: number): boolean {
  const removed = db.query("DELETE FROM session_groups WHERE workspace = ? AND id = ?").run(workspace, id).changes > 0;
  if (removed) db.query("UPDATE sessions SET group_id = NULL, organized_at = ? WHERE workspace = ? AND group_id = ?").run(now, workspace, id);
  return removed;
}

/** Applies `change` to the session's organization; the new organization, or null when there is no such session. */
export function organizeSession(db: Database, id: string, change: OrganizationChange, now: number): SessionOrganizationRow | null {
  const current = getOrganization(db, id);
  if (current === null) return null;
  const next: SessionOrganizationRow = {
    groupId: change.groupId === undefined ? current.groupId : change.groupId,
    color: change.color === undefined ? current.color : change.color,
    pinnedAt: change.pinned === undefined ? current.pinnedAt : change.pinned ? (current.pinnedAt ?? now) : null,
    sortOrder: change.sortOrder === undefined ? current.sortOrder : change.sortOrder,
    organizedAt: now,
  };
  db.query("UPDATE sessions SET group_id = ?, color = ?, pinned_at = ?, sort_order = ?, organized_at = ? WHERE id = ?").run(
    next.groupId,
    next.color,
    next.pinnedAt,
    next.sortOrder,
    next.organizedAt,
    id,
  );
  return next;
}

export function getOrganization(db: Database, id: string): SessionOrganizationRow | null {
  const raw = db.query("SELECT group_id, color, pinned_at, sort_order, organized_at FROM sessions WHERE id = ?").get(id) as {
    group_id: string | null;
    color: string | null;
    pinned_at: number | null;
    sort_order: number | null;
    organized_at: number | null;
  } | null;
  return raw ? { groupId: raw.group_id, color: raw.color, pinnedAt: raw.pinned_at, sortOrder: raw.sort_order, organizedAt: raw.organized_at } : null;
}

/** The organized list's key of a row (see the header). */
export function organizedKey(row: { id: string; updatedAt: number; pinnedAt: number | null; sortOrder: number | null }): OrganizedKey {
  return { unpinned: row.pinnedAt === null ? 1 : 0, order: row.sortOrder ?? NO_ORDER, negUpdated: -row.updatedAt, id: row.id };
}

const FILTERS: Record<OrganizedFilter["kind"], string> = {
  all: "",
  pinned: "AND pinned_at IS NOT NULL",
  // As the reference: a colored session is in its color's bucket, not ungrouped nor in a group.
  ungrouped: "AND group_id IS NULL AND color IS NULL",
  group: "AND color IS NULL AND group_id = $groupId",
};

/** Up to `limit` of a workspace's sessions in organized order, after `after` when given. */
export function organizedRows(db: Database, workspace: string, archived: boolean, filter: OrganizedFilter, source: SourceFilter | null, limit: number, after: OrganizedKey | null): CatalogRow[] {
  const keyed = after === null ? "" : "AND (pinned_at IS NULL, COALESCE(sort_order, $noOrder), -updated_at, id) > ($unpinned, $order, $negUpdated, $id)";
  const sql = `SELECT * FROM sessions WHERE workspace = $workspace AND archived = $archived ${FILTERS[filter.kind]} ${source === null ? "" : "AND source_type = $sourceType AND ($sourceId IS NULL OR source_id = $sourceId)"} ${keyed}
    ORDER BY pinned_at IS NULL, COALESCE(sort_order, $noOrder), -updated_at, id LIMIT $limit`;
  const params: Record<string, string | number | null> = { workspace, archived: archived ? 1 : 0, limit, noOrder: NO_ORDER };
  if (filter.kind === "group") params.groupId = filter.groupId;
  if (source !== null) Object.assign(params, { sourceType: source.sourceType, sourceId: source.sourceId ?? null });
  if (after !== null) Object.assign(params, { unpinned: after.unpinned, order: after.order, negUpdated: after.negUpdated, id: after.id });
  return (db.query(sql).all(params) as RawRow[]).map(fromRaw);
}
