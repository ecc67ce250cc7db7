/**
 * The database schema as an ordered list of migrations. `PRAGMA user_version` holds how many have
 * been applied; `migrate` applies the rest in order, each in its own transaction together with the
 * version bump, so a crash mid-way leaves the database at a whole version. Migrations are only ever
 * appended: an applied one is never edited.
 */
import type { Database } from "bun:sqlite";

export interface Migration {
  readonly version: number;
  readonly up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    // The session catalog: one row per session this data dir has seen, whatever its state.
    // `state`: live (a daemon runs it), closed (a client or the idle reaper closed it),
    // restorable (the daemon or its agent went away under it). A `live` row with no daemon
    // behind it is a session a crash interrupted.
    version: 1,
    up: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        workspace TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        display_name TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        archived INTEGER NOT NULL DEFAULT 0,
        agent_session_id TEXT NOT NULL,
        profile TEXT,
        state TEXT NOT NULL DEFAULT 'live',
        closed_at INTEGER
      );
      CREATE INDEX sessions_by_workspace ON sessions (workspace, archived, updated_at DESC, id);
    `,
  },
  {
    // The event journal: every event a session published with an id, as the exact envelope JSON
    // its subscribers received. `seq` orders a session's events across epochs (restores).
    version: 2,
    up: `
      CREATE TABLE journal (
        seq INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        epoch TEXT NOT NULL,
        event_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        envelope TEXT NOT NULL
      );
      CREATE INDEX journal_by_session ON journal (session_id, seq);
    `,
  },
  {
    // Deleted sessions whose journal rows are still to be removed (compactor.ts): a session's rows
    // up to `up_to_seq` are garbage, invisible to readers, removed a bounded step at a time.
    version: 3,
    up: `
      CREATE TABLE purge (
        session_id TEXT PRIMARY KEY,
        up_to_seq INTEGER NOT NULL
      );
    `,
  },
  {
    // The journal row made small (its cost is paid once per event, on the event loop): an integer
    // session key and an integer epoch key instead of two 36-character ids in every row and index
    // entry, and no `type` column (nothing reads it; the envelope names its type). The keys live in
    // `journal_sessions` (one per session id that has a journal) and `journal_epochs` (one per
    // epoch of such a session); the compactor removes both once a deleted session's rows are gone.
    // Rows keep their `seq`, so purge entries still hold.
    version: 4,
    up: `
      CREATE TABLE journal_sessions (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE
      );
      CREATE TABLE journal_epochs (
        key INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        epoch TEXT NOT NULL,
        UNIQUE (session, epoch)
      );
      INSERT INTO journal_sessions (id) SELECT DISTINCT session_id FROM journal ORDER BY session_id;
      INSERT INTO journal_epochs (session, epoch)
        SELECT DISTINCT s.key, j.epoch FROM journal j JOIN journal_sessions s ON s.id = j.session_id ORDER BY s.key, j.epoch;
      CREATE TABLE journal_v4 (
        seq INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        epoch INTEGER NOT NULL,
        event_id INTEGER NOT NULL,
        envelope TEXT NOT NULL
      );
      INSERT INTO journal_v4 (seq, session, epoch, event_id, envelope)
        SELECT j.seq, s.key, e.key, j.event_id, j.envelope FROM journal j
          JOIN journal_sessions s ON s.id = j.session_id
          JOIN journal_epochs e ON e.session = s.key AND e.epoch = j.epoch
        ORDER BY j.seq;
      DROP TABLE journal;
      ALTER TABLE journal_v4 RENAME TO journal;
      CREATE INDEX journal_by_session ON journal (session, seq);
    `,
  },
  {
    // The journal row becomes a chunk (its cost was paid in pages written, once per event, on the
    // event loop): a run of one session epoch's events with consecutive ids, committed together
    // (journal-chunk.ts). `first_event_id` is the id of its first event, each next one's is one more;
    // `count` how many; `chars` the characters (UTF-16 code units) of their envelopes together, so
    // counts and sizes need no decoding; `encoding` says how `body` holds the envelopes, in order:
    // 0 as TEXT joined by "\n" (an envelope is one line of JSON), 1 as the zstd frame of that text's
    // UTF-8 (a BLOB). A v4 row becomes a one-event chunk of encoding 0 and keeps its `seq`, so purge
    // entries still hold.
    version: 5,
    up: `
      CREATE TABLE journal_v5 (
        seq INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        epoch INTEGER NOT NULL,
        first_event_id INTEGER NOT NULL,
        count INTEGER NOT NULL,
        chars INTEGER NOT NULL,
        encoding INTEGER NOT NULL,
        body NOT NULL
      );
      INSERT INTO journal_v5 (seq, session, epoch, first_event_id, count, chars, encoding, body)
        SELECT seq, session, epoch, event_id, 1, length(envelope), 0, envelope FROM journal ORDER BY seq;
      DROP TABLE journal;
      ALTER TABLE journal_v5 RENAME TO journal;
      CREATE INDEX journal_by_session ON journal (session, seq);
    `,
  },
  {
    // Where a session came from, as its creator named it on `POST /session` (`sourceType`, and
    // `sourceId` within that type); NULL for sessions created without one and for every older row.
    // The lists filter on it, newest first like the unfiltered index.
    version: 6,
    up: `
      ALTER TABLE sessions ADD COLUMN source_type TEXT;
      ALTER TABLE sessions ADD COLUMN source_id TEXT;
      CREATE INDEX sessions_by_source ON sessions (workspace, archived, source_type, updated_at DESC, id);
    `,
  },
  {
    // Workspaces registered to persist (`POST /workspaces` with `persist: true`), per primary
    // workspace (a daemon bound elsewhere has its own set): canonical path, registration id
    // (`workspaceId(path)`), optional display name. A daemon serves them again after a restart.
    version: 7,
    up: `
      CREATE TABLE workspace_registrations (
        primary_workspace TEXT NOT NULL,
        id TEXT NOT NULL,
        path TEXT NOT NULL,
        display_name TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (primary_workspace, id)
      );
    `,
  },
  {
    // Session organization (`session-organization.ts`): a workspace's session groups (name unique
    // per workspace, case-insensitively, checked on write; `sort_order` orders them), and per
    // session its group, color, pin time and sort order (all NULL: not organized). A group's
    // deletion ungroups its sessions.
    version: 8,
    up: `
      CREATE TABLE session_groups (
        workspace TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        color TEXT NOT NULL,
        sort_order INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (workspace, id)
      );
      ALTER TABLE sessions ADD COLUMN group_id TEXT;
      ALTER TABLE sessions ADD COLUMN color TEXT;
      ALTER TABLE sessions ADD COLUMN pinned_at INTEGER;
      ALTER TABLE sessions ADD COLUMN sort_order INTEGER;
      ALTER TABLE sessions ADD COLUMN organized_at INTEGER;
    `,
  },
  {
    // A branch's link to its parent (`POST /session/:id/branch`, `session-branch.ts`): the session
    // it was branched from and that session's last turn (prompt id) it holds; NULL for any other
    // session. The parent may since be deleted: the link then names a session the catalog lacks.
    version: 9,
    up: `
      ALTER TABLE sessions ADD COLUMN parent_session_id TEXT;
      ALTER TABLE sessions ADD COLUMN parent_prompt_id TEXT;
    `,
  },
  {
    // A worktree session's checkout (`POST /session` with `worktree`, `workspace/worktree/`): its
    // name, path and branch as JSON; and, once a worktree reset handed the checkout to a
    // replacement session, that session's id. Both NULL for any other session.
    version: 10,
    up: `
      ALTER TABLE sessions ADD COLUMN worktree TEXT;
      ALTER TABLE sessions ADD COLUMN superseded_by TEXT;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** A database written by a newer svc: its schema is unknown here, so it is not written. */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
  constructor(readonly found: number) {
    super(`svc.db has schema version ${found}, newer than this svc knows (${SCHEMA_VERSION})`);
  }
}

export function schemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

/** Brings `db` up to `SCHEMA_VERSION` (or the last of `migrations`); returns the versions applied. */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const current = schemaVersion(db);
  const target = migrations[migrations.length - 1]?.version ?? 0;
  if (current > target) throw new SchemaTooNewError(current);
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.run(migration.up);
      // PRAGMA takes no bound parameters; the version is a number from the list above.
      db.run(`PRAGMA user_version = ${migration.version}`);
    }).immediate();
    applied.push(migration.version);
  }
  return applied;
}
