/**
 * Session organization (tag `session_organization`), in the reference daemon's shapes: a
 * workspace's session groups (`{id, name, color, order, createdAt, updatedAt}`; created, renamed,
 * recolored, reordered, deleted), each session's pin, group, color and sort order, and the
 * organized session list (`view=organized`, optionally one `group`: `all`, `pinned`, `ungrouped`
 * or a group id). Everything is kept in the catalog (store migration 8), so it survives restarts.
 *
 * Bounds: MAX_GROUPS groups per workspace (400 `group_limit_reached` past it), names of 1 to
 * MAX_GROUP_NAME_CHARS characters without control or bidi characters, unique per workspace
 * case-insensitively (409 `group_name_conflict`); a group's color is a preset or `#rrggbb`, a
 * session's color a preset; orders are safe integers. Errors are the reference's codes:
 * `invalid_group_name`, `invalid_group_color`, `invalid_group_order` (400, with `field`),
 * `group_not_found` (404), `invalid_session_organization` (400).
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { CatalogRow, SourceFilter } from "../store/catalog.ts";
import * as org from "../store/session-organization.ts";
import type { Store } from "../store/store.ts";
import { decodeCursor, encodeCursor } from "./history-cursor.ts";
import { MAX_GROUP_NAME_CHARS, MAX_GROUPS } from "./organization-limits.ts";
import { persistedSummary, type SessionListRecord } from "./session-history.ts";
import { sessionNotFound } from "./session-errors.ts";
import type { SessionManager } from "./session-manager.ts";
import { sessionSummary } from "./session-summary.ts";

export const GROUP_COLORS = ["red", "orange", "yellow", "green", "blue", "purple"] as const;
export { MAX_GROUPS, MAX_GROUP_NAME_CHARS };

/** Control, line/paragraph separator, zero-width and bidi characters (as the reference refuses them in names). */
const UNSAFE_NAME = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

export interface GroupView {
  id: string;
  name: string;
  color: string;
  order: number;
  createdAt: string;
  updatedAt: string;
}

export interface OrganizationView {
  groupId: string | null;
  color: string | null;
  isPinned: boolean;
  pinnedAt?: string;
  sortOrder: number | null;
  updatedAt: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const groupView = (g: org.GroupRow): GroupView => ({ id: g.id, name: g.name, color: g.color, order: g.order, createdAt: iso(g.createdAt), updatedAt: iso(g.updatedAt) });

function organizationView(row: org.SessionOrganizationRow): OrganizationView {
  return {
    groupId: row.groupId,
    color: row.color,
    isPinned: row.pinnedAt !== null,
    ...(row.pinnedAt !== null ? { pinnedAt: iso(row.pinnedAt) } : {}),
    sortOrder: row.sortOrder,
    updatedAt: iso(row.organizedAt ?? 0),
  };
}

const bad = (code: string, field: string, message: string) => new DaemonError(400, code, message, { field });
const groupNotFound = (id: string, field = "groupId") => new DaemonError(404, "group_not_found", `Group not found: ${id}`, { field });

function checkName(name: unknown): string {
  const message = `\`name\` must be 1-${MAX_GROUP_NAME_CHARS} characters and contain no control characters`;
  if (typeof name !== "string") throw bad("invalid_group_name", "name", "`name` must be a string");
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_GROUP_NAME_CHARS || UNSAFE_NAME.test(trimmed) || !trimmed.isWellFormed()) throw bad("invalid_group_name", "name", message);
  return trimmed;
}

function checkGroupColor(color: unknown): string {
  const c = typeof color === "string" ? color.trim() : color;
  if (typeof c === "string" && (GROUP_COLORS as readonly string[]).includes(c)) return c;
  if (typeof c === "string" && /^#[0-9a-f]{6}$/i.test(c)) return c.toLowerCase();
  throw bad("invalid_group_color", "color", "`color` must be a supported preset or a #RRGGBB hex value");
}

function checkOrder(order: unknown, code: string, field: string): number {
  if (!Number.isSafeInteger(order)) throw bad(code, field, `\`${field}\` must be a safe integer`);
  return order as number;
}

/** The organized list's `group`: `all`, `pinned`, `ungrouped` or a group id. */
export type GroupSelector = string;

export class SessionOrganization {
  constructor(
    private readonly sessions: SessionManager,
    private readonly store: Store | null,
    private readonly now: () => number = Date.now,
  ) {}

  listGroups(workspace: string) {
    const groups = this.store === null ? [] : this.store.readOrganization((db) => org.listGroups(db, workspace));
    return { groups: groups.map(groupView), colorOptions: [...GROUP_COLORS] };
  }

  createGroup(workspace: string, body: { name?: unknown; color?: unknown }): GroupView {
    const name = checkName(body.name);
    const color = checkGroupColor(body.color);
    return this.requireStore().changeOrganization((db) => {
      if (org.groupNamed(db, workspace, name, null)) throw nameConflict(name);
      if (org.countGroups(db, workspace) >= MAX_GROUPS) throw new DaemonError(400, "group_limit_reached", `Maximum number of groups (${MAX_GROUPS}) reached`, { limit: MAX_GROUPS });
      const now = this.now();
      const row: org.GroupRow = { id: crypto.randomUUID(), name, color, order: org.nextGroupOrder(db, workspace), createdAt: now, updatedAt: now };
      org.insertGroup(db, workspace, row);
      return groupView(row);
    });
  }

  updateGroup(workspace: string, id: string, body: { name?: unknown; color?: unknown; order?: unknown }): GroupView {
    const name = body.name === undefined ? undefined : checkName(body.name);
    const color = body.color === undefined ? undefined : checkGroupColor(body.color);
    const order = body.order === undefined ? undefined : checkOrder(body.order, "invalid_group_order", "order");
    return this.requireStore().changeOrganization((db) => {
      const current = org.getGroup(db, workspace, id);
      if (current === null) throw groupNotFound(id);
      if (name !== undefined && org.groupNamed(db, workspace, name, id)) throw nameConflict(name);
      const row: org.GroupRow = { ...current, name: name ?? current.name, color: color ?? current.color, order: order ?? current.order, updatedAt: this.now() };
      org.updateGroup(db, workspace, row);
      return groupView(row);
    });
  }

  deleteGroup(workspace: string, id: string): { deleted: boolean } {
    return { deleted: this.requireStore().changeOrganization((db) => org.deleteGroup(db, workspace, id, this.now())) };
  }

  /**
   * Changes a session's organization (`workspace`: the qualified form's, whose sessions only it
   * may change). A session the catalog lacks is 404 (a live one whose recording is degraded: 503).
   */
  organize(sessionId: string, body: { isPinned?: unknown; groupId?: unknown; color?: unknown; sortOrder?: unknown }, workspace?: string): OrganizationView & { sessionId: string } {
    const invalid = (field: string, message: string) => bad("invalid_session_organization", field, message);
    if (body.isPinned !== undefined && typeof body.isPinned !== "boolean") throw invalid("isPinned", "`isPinned` must be a boolean");
    if (body.groupId !== undefined && body.groupId !== null && typeof body.groupId !== "string") throw invalid("groupId", "`groupId` must be a string or null");
    if (body.color !== undefined && body.color !== null && !(GROUP_COLORS as readonly unknown[]).includes(body.color)) throw invalid("color", "`color` must be a supported color or null");
    if (body.sortOrder !== undefined && body.sortOrder !== null && !Number.isSafeInteger(body.sortOrder)) throw invalid("sortOrder", "`sortOrder` must be a safe integer or null");
    const live = this.sessions.peek(sessionId);
    const store = this.store;
    const row = store?.session(sessionId) ?? null;
    if (row === null || (workspace !== undefined && row.workspace !== workspace)) {
      if (live !== null && row === null && (workspace === undefined || live.workspaceCwd === workspace))
        throw new DaemonError(503, "store_unavailable", "The session is not in the catalog (recording is degraded), so it cannot be organized", { reason: "not_recorded", sessionId });
      throw sessionNotFound(sessionId);
    }
    const change: org.OrganizationChange = {
      ...(body.isPinned !== undefined ? { pinned: body.isPinned as boolean } : {}),
      ...(body.groupId !== undefined ? { groupId: body.groupId as string | null } : {}),
      ...(body.color !== undefined ? { color: body.color as string | null } : {}),
      ...(body.sortOrder !== undefined ? { sortOrder: body.sortOrder as number | null } : {}),
    };
    const result = store!.changeOrganization((db) => {
      if (typeof change.groupId === "string" && org.getGroup(db, row.workspace, change.groupId) === null) throw groupNotFound(change.groupId);
      if (Object.keys(change).length === 0) return org.getOrganization(db, sessionId);
      return org.organizeSession(db, sessionId, change, this.now());
    });
    if (result === null) throw sessionNotFound(sessionId);
    return { sessionId, ...organizationView(result) };
  }

  /**
   * One page of the organized list: pinned first, then by sort order, then most recently updated
   * (see store/session-organization.ts), each with its organization, live ones with their live
   * state. Live sessions the catalog lacks (recording degraded) lead the first page of `all`.
   */
  list(workspace: string, archived: boolean, size: number, cursor: string | undefined, group: GroupSelector, source: SourceFilter | null) {
    const scope = `organized:${workspace}:${archived ? "archived" : "active"}:${group}${source ? `:${source.sourceType}:${source.sourceId ?? ""}` : ""}`;
    const after = cursor === undefined ? null : decodeCursor<{ unpinned: number; order: number; updatedAt: number; id: string }>(cursor, scope, { unpinned: "number", order: "number", updatedAt: "number", id: "string" }, "invalid_cursor");
    const filter: org.OrganizedFilter = group === "all" || group === "pinned" || group === "ungrouped" ? { kind: group } : { kind: "group", groupId: group };
    const unorganized = { groupId: null, color: null, isPinned: false, sortOrder: null };
    if (this.store === null) {
      if (filter.kind === "group") throw groupNotFound(group, "group");
      // No catalog: nothing is organized or archived, and the live sessions are all there is (as the plain list says).
      if (archived || filter.kind === "pinned" || after !== null || source !== null) return { sessions: [] };
      return { sessions: [...this.sessions.all()].filter((live) => live.workspaceCwd === workspace).map((live) => ({ ...sessionSummary(live, { listEntry: true }), isArchived: false, live: true as const, ...unorganized })) };
    }
    const rows = this.store.readOrganization((db) => {
      if (filter.kind === "group" && org.getGroup(db, workspace, filter.groupId) === null) throw groupNotFound(group, "group");
      const key = after === null ? null : { unpinned: after.unpinned === 0 ? (0 as const) : (1 as const), order: after.order, negUpdated: -after.updatedAt, id: after.id };
      return org.organizedRows(db, workspace, archived, filter, source, size + 1, key);
    });
    const page = rows.slice(0, size);
    const sessions: SessionListRecord[] = [];
    if (after === null && !archived && source === null && (filter.kind === "all" || filter.kind === "ungrouped"))
      for (const live of this.sessions.all())
        if (live.workspaceCwd === workspace && this.store.session(live.id) === null) sessions.push({ ...sessionSummary(live, { listEntry: true }), isArchived: false, live: true as const, ...unorganized });
    for (const row of page) {
      const live = this.sessions.peek(row.id);
      const base = live ? { ...sessionSummary(live, { listEntry: true }), isArchived: row.archived, live: true as const } : persistedSummary(row);
      sessions.push({ ...base, ...rowOrganization(row) });
    }
    const last = page[page.length - 1];
    if (rows.length <= size || !last) return { sessions };
    const key = org.organizedKey(last);
    return { sessions, nextCursor: encodeCursor(scope, { unpinned: key.unpinned, order: key.order, updatedAt: last.updatedAt, id: last.id }) };
  }

  private requireStore(): Store {
    if (this.store === null) throw new DaemonError(503, "store_unavailable", "This daemon keeps no session history", { reason: "no_store" });
    return this.store;
  }
}

const nameConflict = (name: string) => new DaemonError(409, "group_name_conflict", `A group named ${JSON.stringify(name)} already exists`, { field: "name" });

/** A catalog row's organization as the list shows it. */
function rowOrganization(row: CatalogRow) {
  return {
    groupId: row.groupId,
    color: row.color,
    isPinned: row.pinnedAt !== null,
    ...(row.pinnedAt !== null ? { pinnedAt: iso(row.pinnedAt) } : {}),
    sortOrder: row.sortOrder,
  };
}
