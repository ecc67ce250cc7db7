/**
 * Schema 5: journal rows become chunks (src/store/journal-chunk.ts). A schema-4 database migrates
 * with every row as a one-event chunk of the same seq: every session reads back the same records in
 * the same order, pages resume where they should, purges still hold, and recording goes on in chunks.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../../src/store/database.ts";
import { MIGRATIONS, SCHEMA_VERSION, migrate, schemaVersion } from "../../../src/store/migrations.ts";
import { Store, type JournalRecord } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const S1 = "5e55a0e1-0000-4000-8000-000000000001";
const S2 = "5e55a0e1-0000-4000-8000-000000000002";
const GONE = "5e55a0e1-0000-4000-8000-000000000003";
const E1 = "e9000000-0000-4000-8000-000000000001";
const E2 = "e9000000-0000-4000-8000-000000000002";

const envelope = (id: number, text: string) => JSON.stringify({ id, v: 1, type: "session_update", data: { text } });
const view = (records: readonly JournalRecord[]) => records.map((r) => ({ epoch: r.epoch, eventId: r.eventId, envelope: r.envelope }));

/** A schema-4 database: sessions over two epochs, rows interleaved, a deleted session whose id came back before compaction. */
function schema4Database(path: string): void {
  const db = new Database(path, { create: true, strict: true });
  db.run("PRAGMA auto_vacuum = INCREMENTAL");
  migrate(db, MIGRATIONS.filter((m) => m.version <= 4));
  const session = db.query("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id, state) VALUES (?1, '/ws', 1, 2, ?1, 'closed')");
  const key = db.query("INSERT OR IGNORE INTO journal_sessions (id) VALUES (?1)");
  const epoch = db.query("INSERT OR IGNORE INTO journal_epochs (session, epoch) SELECT key, ?2 FROM journal_sessions WHERE id = ?1");
  const row = db.query(
    `INSERT INTO journal (session, epoch, event_id, envelope)
       SELECT s.key, e.key, ?3, ?4 FROM journal_sessions s JOIN journal_epochs e ON e.session = s.key AND e.epoch = ?2 WHERE s.id = ?1`,
  );
  const add = (id: string, ep: string, eventId: number, text: string) => {
    key.run(id);
    epoch.run(id, ep);
    row.run(id, ep, eventId, envelope(eventId, text));
  };
  for (const id of [S1, S2, GONE]) session.run(id);
  for (let i = 1; i <= 4; i++) {
    add(S1, E1, i, `s1 e1 ${i} ü`);
    add(S2, E1, i, `s2 e1 ${i}`);
    add(GONE, E1, i, `gone ${i}`);
  }
  db.run("DELETE FROM sessions WHERE id = ?1", [GONE]);
  db.run("INSERT INTO purge (session_id, up_to_seq) SELECT ?1, MAX(seq) FROM journal WHERE session = (SELECT key FROM journal_sessions WHERE id = ?1)", [GONE]);
  session.run(GONE);
  for (let i = 1; i <= 3; i++) {
    add(S1, E2, i, `s1 e2 ${i}`);
    add(GONE, E2, i, `back ${i}`);
  }
  db.close();
}

/** What each session's readers saw in the schema-4 database, straight from its rows. */
function schema4Views(path: string): Map<string, { epoch: string; eventId: number; envelope: string }[]> {
  const db = new Database(path, { readonly: true });
  const views = new Map<string, { epoch: string; eventId: number; envelope: string }[]>();
  for (const id of [S1, S2, GONE])
    views.set(
      id,
      db
        .query(
          `SELECT e.epoch, j.event_id AS eventId, j.envelope FROM journal j
             JOIN journal_sessions s ON s.key = j.session JOIN journal_epochs e ON e.key = j.epoch
            WHERE s.id = ?1 AND j.seq > (SELECT COALESCE(MAX(up_to_seq), 0) FROM purge WHERE session_id = ?1) ORDER BY j.seq`,
        )
        .all(id) as { epoch: string; eventId: number; envelope: string }[],
    );
  db.close();
  return views;
}

describe("journal schema 5", () => {
  test("a journal row is a chunk: keys, the run's first id, its count and characters, the encoding and the body", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    store.sessions("/", false, 1, null);
    store.close();
    const db = new Database(join(dir.path, DB_FILE), { readonly: true });
    const columns = db.query("PRAGMA table_info(journal)").all() as { name: string; type: string }[];
    expect(columns.map((c) => `${c.name} ${c.type}`.trim())).toEqual([
      "seq INTEGER",
      "session INTEGER",
      "epoch INTEGER",
      "first_event_id INTEGER",
      "count INTEGER",
      "chars INTEGER",
      "encoding INTEGER",
      "body",
    ]);
    expect((db.query("PRAGMA index_info(journal_by_session)").all() as { name: string }[]).map((c) => c.name)).toEqual(["session", "seq"]);
    db.close();
  });

  test("a schema-4 database migrates: the same records in the same order, paged from anywhere; purges hold; recording goes on in chunks", async () => {
    await using dir = tempDir();
    const path = join(dir.path, DB_FILE);
    schema4Database(path);
    const before = schema4Views(path);
    expect(before.get(GONE)!.map((r) => r.eventId)).toEqual([1, 2, 3]);

    const store = new Store(dir.path);
    try {
      expect(store.degraded).toBeNull();
      for (const id of [S1, S2, GONE]) {
        const want = before.get(id)!;
        expect(view(store.journal(id, 0, 100))).toEqual(want);
        // One record per page, each resuming where the last ended.
        const paged: JournalRecord[] = [];
        for (let after = 0, more = true; more; ) {
          const page = store.journalPage(id, after, 1, Number.MAX_SAFE_INTEGER);
          paged.push(...page.records);
          more = page.hasMore;
          after = page.records.at(-1)?.position ?? after;
        }
        expect(view(paged)).toEqual(want);
        // SQLite counts a v4 envelope's characters in code points: the same as UTF-16 units here (no astral characters).
        expect(store.journalChars(id)).toBe(want.reduce((n, r) => n + r.envelope.length, 0));
      }
      const newest = store.recent(S1, 3, 1_000_000);
      expect(view(newest.records)).toEqual(before.get(S1)!.slice(-3));
      expect(newest.omitted).toBe(4);

      // Recording goes on after the migrated rows, as chunks, and pages run on from them.
      const last = store.journal(S1, 0, 100).at(-1)!;
      for (let i = 4; i <= 6; i++) store.record({ sessionId: S1, epoch: E2, eventId: i, envelope: envelope(i, `s1 e2 ${i}`), timestamp: 10 + i }, () => {});
      store.flush();
      expect(store.journal(S1, last.position, 100).map((r) => `${r.epoch}:${r.eventId}`)).toEqual([`${E2}:4`, `${E2}:5`, `${E2}:6`]);

      // The pending purge of GONE's first life is done by compaction; its second life stays.
      store.compact();
      expect(view(store.journal(GONE, 0, 100))).toEqual(before.get(GONE)!);
    } finally {
      store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.query("SELECT COUNT(*) AS n FROM purge").get()).toEqual({ n: 0 });
    // 4 + 3 + 4 + 3 migrated rows (GONE's first 4 compacted away), then one chunk of 3.
    expect(db.query("SELECT count, COUNT(*) AS n FROM journal GROUP BY count ORDER BY count").all()).toEqual([
      { count: 1, n: 14 },
      { count: 3, n: 1 },
    ]);
    db.close();
  });
});
