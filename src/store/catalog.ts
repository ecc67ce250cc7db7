/**
 * The session catalog (`sessions` table): what the daemon knows about every session it has run,
 * live or not. Rows are written when a session starts, when its metadata changes and when it ends;
 * the journal writer keeps `updated_at` current. Paging is keyset on (updated_at, id), newest first.
 */
import type { Database, Statement } from "bun:sqlite";

export type PersistedState = "live" | "closed" | "restorable";

export interface CatalogRow {
  readonly id: string;
  readonly workspace: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly displayName: string | null;
  readonly metadata: Record<string, unknown>;
  readonly archived: boolean;
  readonly agentSessionId: string;
  readonly profile: string | null;
  readonly state: PersistedState;
  readonly closedAt: number | null;
  /** Where the session came from, as its creator named it (`POST /session`); null when it did not. */
  readonly sourceType: string | null;
  readonly sourceId: string | null;
  /** The session's organization (migration 8, `session-organization.ts`); null when it has none. */
  readonly groupId: string | null;
  readonly color: string | null;
  readonly pinnedAt: number | null;
  readonly sortOrder: number | null;
  /** A branch's parent session and the parent's last turn it holds (migration 9); null for any other session. */
  readonly parentSessionId: string | null;
  readonly parentPromptId: string | null;
  /** A worktree session's checkout as JSON `{slug, path, branch}` (migration 10); null for any other session. */
  readonly worktree: string | null;
  /** The session a worktree reset handed this one's checkout to (migration 10); null otherwise. */
  readonly supersededBy: string | null;
}

/** A session list's filter on the source: a type, and optionally an id within it. */
export interface SourceFilter {
  readonly sourceType: string;
  readonly sourceId?: string;
}

export interface NewSession {
  readonly id: string;
  readonly workspace: string;
  readonly createdAt: number;
  readonly agentSessionId: string;
  readonly profile: string | null;
  readonly sourceType?: string;
  readonly sourceId?: string;
  /** A branch's parent and the parent's last turn it holds (kept on a later restore, which gives none). */
  readonly parentSessionId?: string;
  readonly parentPromptId?: string;
  /** A worktree session's checkout as JSON (kept on a later restore, which gives none). */
  readonly worktree?: string;
}

/** Where a page of the list starts: after this (updated_at, id), newest first. */
export interface CatalogKey {
  readonly updatedAt: number;
  readonly id: string;
}

export interface RawRow {
  id: string;
  workspace: string;
  created_at: number;
  updated_at: number;
  display_name: string | null;
  metadata: string;
  archived: number;
  agent_session_id: string;
  profile: string | null;
  state: PersistedState;
  closed_at: number | null;
  source_type: string | null;
  source_id: string | null;
  group_id: string | null;
  color: string | null;
  pinned_at: number | null;
  sort_order: number | null;
  parent_session_id: string | null;
  parent_prompt_id: string | null;
  worktree: string | null;
  superseded_by: string | null;
}

/** A `sessions` row as read (`SELECT *`). */
export function fromRaw(raw: RawRow): CatalogRow {
  let metadata: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(raw.metadata) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) metadata = parsed as Record<string, unknown>;
  } catch {
    // A row edited by hand: the rest of it is still worth listing.
  }
  return {
    id: raw.id,
    workspace: raw.workspace,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    displayName: raw.display_name,
    metadata,
    archived: raw.archived !== 0,
    agentSessionId: raw.agent_session_id,
    profile: raw.profile,
    state: raw.state,
    closedAt: raw.closed_at,
    sourceType: raw.source_type,
    sourceId: raw.source_id,
    groupId: raw.group_id,
    color: raw.color,
    pinnedAt: raw.pinned_at,
    sortOrder: raw.sort_order,
    parentSessionId: raw.parent_session_id ?? null,
    parentPromptId: raw.parent_prompt_id ?? null,
    worktree: raw.worktree ?? null,
    supersededBy: raw.superseded_by ?? null,
  };
}

export class Catalog {
  private readonly insert: Statement;
  private readonly setMeta: Statement;
  private readonly setState: Statement;
  private readonly supersede: Statement;
  private readonly getOne: Statement<RawRow>;
  private readonly archive: Statement;
  private readonly purgeJournal: Statement;
  private readonly removeRow: Statement;
  private readonly firstPage: Statement<RawRow>;
  private readonly nextPage: Statement<RawRow>;
  private readonly firstSourcePage: Statement<RawRow>;
  private readonly nextSourcePage: Statement<RawRow>;
  private readonly countByArchived: Statement<{ archived: number; n: number }>;

  constructor(db: Database) {
    // A session id seen before (an agent that reuses ids across restarts) takes the row over; a
    // restore (no source given) keeps the source the row has.
    this.insert = db.query(
      `INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id, profile, state, source_type, source_id, parent_session_id, parent_prompt_id, worktree)
       VALUES ($id, $workspace, $createdAt, $createdAt, $agentSessionId, $profile, 'live', $sourceType, $sourceId, $parentSessionId, $parentPromptId, $worktree)
       ON CONFLICT (id) DO UPDATE SET workspace = excluded.workspace, updated_at = excluded.updated_at,
         agent_session_id = excluded.agent_session_id, profile = excluded.profile, state = 'live', closed_at = NULL,
         source_type = COALESCE(excluded.source_type, source_type),
         source_id = CASE WHEN excluded.source_type IS NULL THEN source_id ELSE excluded.source_id END,
         parent_session_id = COALESCE(excluded.parent_session_id, parent_session_id),
         parent_prompt_id = CASE WHEN excluded.parent_session_id IS NULL THEN parent_prompt_id ELSE excluded.parent_prompt_id END,
         worktree = COALESCE(excluded.worktree, worktree)`,
    );
    this.supersede = db.query("UPDATE sessions SET superseded_by = $by, updated_at = MAX(updated_at, $now) WHERE id = $id");
    this.setMeta = db.query("UPDATE sessions SET display_name = $displayName, metadata = $metadata, updated_at = MAX(updated_at, $now) WHERE id = $id");
    this.setState = db.query("UPDATE sessions SET state = $state, closed_at = $now, updated_at = MAX(updated_at, $now) WHERE id = $id");
    this.getOne = db.query("SELECT * FROM sessions WHERE id = $id");
    this.archive = db.query("UPDATE sessions SET archived = $archived WHERE id = $id");
    // The journal rows are left to the compactor (a bounded step at a time); readers skip them from now on.
    this.purgeJournal = db.query(
      `INSERT INTO purge (session_id, up_to_seq)
         SELECT $id, MAX(seq) FROM journal WHERE session = (SELECT key FROM journal_sessions WHERE id = $id) GROUP BY session
       ON CONFLICT (session_id) DO UPDATE SET up_to_seq = MAX(up_to_seq, excluded.up_to_seq)`,
    );
    this.removeRow = db.query("DELETE FROM sessions WHERE id = $id");
    this.firstPage = db.query("SELECT * FROM sessions WHERE workspace = $workspace AND archived = $archived ORDER BY updated_at DESC, id DESC LIMIT $limit");
    this.nextPage = db.query(
      `SELECT * FROM sessions WHERE workspace = $workspace AND archived = $archived
         AND (updated_at < $updatedAt OR (updated_at = $updatedAt AND id < $id))
       ORDER BY updated_at DESC, id DESC LIMIT $limit`,
    );
    // `$sourceId` NULL: any id of the type.
    this.firstSourcePage = db.query(
      `SELECT * FROM sessions WHERE workspace = $workspace AND archived = $archived AND source_type = $sourceType
         AND ($sourceId IS NULL OR source_id = $sourceId)
       ORDER BY updated_at DESC, id DESC LIMIT $limit`,
    );
    this.nextSourcePage = db.query(
      `SELECT * FROM sessions WHERE workspace = $workspace AND archived = $archived AND source_type = $sourceType
         AND ($sourceId IS NULL OR source_id = $sourceId)
         AND (updated_at < $updatedAt OR (updated_at = $updatedAt AND id < $id))
       ORDER BY updated_at DESC, id DESC LIMIT $limit`,
    );
    this.countByArchived = db.query("SELECT archived, COUNT(*) AS n FROM sessions WHERE workspace = $workspace GROUP BY archived");
  }

  create(row: NewSession): void {
    this.insert.run({
      id: row.id,
      workspace: row.workspace,
      createdAt: row.createdAt,
      agentSessionId: row.agentSessionId,
      profile: row.profile,
      sourceType: row.sourceType ?? null,
      sourceId: row.sourceType === undefined ? null : (row.sourceId ?? null),
      parentSessionId: row.parentSessionId ?? null,
      parentPromptId: row.parentSessionId === undefined ? null : (row.parentPromptId ?? null),
      worktree: row.worktree ?? null,
    });
  }

  /** Records that a worktree reset handed `id`'s checkout to session `by`. */
  markSuperseded(id: string, by: string, now: number): void {
    this.supersede.run({ id, by, now });
  }

  updateMetadata(id: string, displayName: string | null, metadata: Record<string, unknown>, now: number): void {
    this.setMeta.run({ id, displayName, metadata: JSON.stringify(metadata), now });
  }

  markEnded(id: string, state: Exclude<PersistedState, "live">, now: number): void {
    this.setState.run({ id, state, now });
  }

  /** True when the session exists. */
  setArchived(id: string, archived: boolean): boolean {
    return this.archive.run({ id, archived: archived ? 1 : 0 }).changes > 0;
  }

  /** Removes the session and hands its journal to the compactor; true when it existed. */
  remove(id: string): boolean {
    this.purgeJournal.run({ id });
    return this.removeRow.run({ id }).changes > 0;
  }

  /** How many sessions of `workspace` the catalog holds, active (not archived) and archived. */
  count(workspace: string): { active: number; archived: number } {
    const counts = { active: 0, archived: 0 };
    for (const { archived, n } of this.countByArchived.all({ workspace })) counts[archived !== 0 ? "archived" : "active"] = n;
    return counts;
  }

  get(id: string): CatalogRow | null {
    const raw = this.getOne.get({ id });
    return raw ? fromRaw(raw) : null;
  }

  /** Up to `limit` sessions of `workspace`, newest first, after `after` when given; only those of `source` when given. */
  list(workspace: string, archived: boolean, limit: number, after: CatalogKey | null, source: SourceFilter | null = null): CatalogRow[] {
    const base = { workspace, archived: archived ? 1 : 0, limit };
    const key = after === null ? null : { updatedAt: after.updatedAt, id: after.id };
    if (source !== null) {
      const filtered = { ...base, sourceType: source.sourceType, sourceId: source.sourceId ?? null };
      return (key === null ? this.firstSourcePage.all(filtered) : this.nextSourcePage.all({ ...filtered, ...key })).map(fromRaw);
    }
    return (key === null ? this.firstPage.all(base) : this.nextPage.all({ ...base, ...key })).map(fromRaw);
  }
}
