/**
 * Schema 4: journal rows keyed by integers (a session key and an epoch key) instead of the 36-character
 * ids, and no `type` column. A schema-3 database migrates with every row, its order, its epochs and its
 * pending purges intact; keys are created on first use and go once a deleted session's rows are gone.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../../src/store/database.ts";
import { chunkOf } from "../../../src/store/journal-chunk.ts";
import { MIGRATIONS, SCHEMA_VERSION, migrate, schemaVersion } from "../../../src/store/migrations.ts";
import { Store, type JournalRecord } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const S1 = "0b6f4f4e-1f0c-4d43-9a52-4f1b1f6d0c01";
const S2 = "0b6f4f4e-1f0c-4d43-9a52-4f1b1f6d0c02";
const GONE = "0b6f4f4e-1f0c-4d43-9a52-4f1b1f6d0c03";
const E1 = "7d1a6f0e-0000-4000-8000-000000000001";
const E2 = "7d1a6f0e-0000-4000-8000-000000000002";

const envelope = (id: number, text: string) => JSON.stringify({ id, v: 1, type: "session_update", data: { text } });
// A v4 row migrates to a one-event chunk (schema 5) of the same seq: its record's position is that chunk's first.
const view = (records: readonly JournalRecord[]) => records.map((r) => ({ seq: chunkOf(r.position), epoch: r.epoch, eventId: r.eventId, envelope: r.envelope }));
const count = (db: Database, sql: string) => (db.query(sql).get() as { n: number }).n;

/** A schema-3 database: two sessions over two epochs, rows interleaved, and a deleted session whose id came back before compaction. */
function schema3Database(path: string): void {
  const db = new Database(path, { create: true, strict: true });
  db.run("PRAGMA auto_vacuum = INCREMENTAL");
  migrate(db, MIGRATIONS.filter((m) => m.version <= 3));
  const session = db.query("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id, state) VALUES (?1, '/ws', 1, 2, ?1, 'closed')");
  for (const id of [S1, S2, GONE]) session.run(id);
  const row = db.query("INSERT INTO journal (session_id, epoch, event_id, type, envelope) VALUES (?1, ?2, ?3, 'session_update', ?4)");
  for (let i = 1; i <= 3; i++) {
    row.run(S1, E1, i, envelope(i, `s1 e1 ${i}`));
    row.run(S2, E1, i, envelope(i, `s2 e1 ${i}`));
    row.run(GONE, E1, i, envelope(i, `gone ${i}`));
  }
  // GONE was deleted (its rows up to here are garbage), then its id came back with a new epoch.
  db.run("DELETE FROM sessions WHERE id = ?1", [GONE]);
  db.run("INSERT INTO purge (session_id, up_to_seq) SELECT session_id, MAX(seq) FROM journal WHERE session_id = ?1", [GONE]);
  session.run(GONE);
  for (let i = 1; i <= 2; i++) {
    row.run(S1, E2, i, envelope(i, `s1 e2 ${i}`));
    row.run(GONE, E2, i, envelope(i, `back ${i}`));
  }
  db.close();
}

/** What every reader saw in the schema-3 database, straight from its rows. */
function schema3Views(path: string): Map<string, { seq: number; epoch: string; eventId: number; envelope: string }[]> {
  const db = new Database(path, { readonly: true });
  const views = new Map<string, { seq: number; epoch: string; eventId: number; envelope: string }[]>();
  for (const id of [S1, S2, GONE]) {
    const rows = db
      .query("SELECT seq, epoch, event_id AS eventId, envelope FROM journal WHERE session_id = ?1 AND seq > (SELECT COALESCE(MAX(up_to_seq), 0) FROM purge WHERE session_id = ?1) ORDER BY seq")
      .all(id) as { seq: number; epoch: string; eventId: number; envelope: string }[];
    views.set(id, rows);
  }
  db.close();
  return views;
}

describe("journal schema 4", () => {
  test("a schema-3 database migrates: every session reads back the same rows, seqs and epochs, and purges still hold", async () => {
    await using dir = tempDir();
    const path = join(dir.path, DB_FILE);
    schema3Database(path);
    const before = schema3Views(path);
    expect(before.get(GONE)!.map((r) => r.envelope)).toEqual([envelope(1, "back 1"), envelope(2, "back 2")]);

    const store = new Store(dir.path);
    try {
      expect(store.degraded).toBeNull();
      for (const id of [S1, S2, GONE]) {
        expect(view(store.journal(id, 0, 100))).toEqual(before.get(id)!);
        expect(store.journalChars(id)).toBe(before.get(id)!.reduce((n, r) => n + r.envelope.length, 0));
      }
      const newest = store.recent(S1, 3, 1_000_000);
      expect(view(newest.records)).toEqual(before.get(S1)!.slice(-3));
      expect(newest.omitted).toBe(2);
      // Recording goes on after the migrated rows: an old epoch reuses its key, a new one gets one.
      store.record({ sessionId: S1, epoch: E2, eventId: 3, envelope: envelope(3, "s1 e2 3"), timestamp: 10 }, () => {});
      store.record({ sessionId: S1, epoch: "e3", eventId: 1, envelope: envelope(1, "s1 e3 1"), timestamp: 11 }, () => {});
      store.flush();
      const s1 = store.journal(S1, 0, 100);
      expect(s1.slice(-2).map((r) => `${r.epoch}:${r.eventId}`)).toEqual([`${E2}:3`, "e3:1"]);
      expect(chunkOf(s1.at(-2)!.position)).toBeGreaterThan(Math.max(...[...before.values()].flat().map((r) => r.seq)));
    } finally {
      store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(count(db, "SELECT COUNT(*) AS n FROM journal_sessions")).toBe(3);
    expect(count(db, "SELECT COUNT(*) AS n FROM journal_epochs")).toBe(6);
    db.close();
  });

  test("compaction removes a deleted session's rows and then its keys; a session whose id came back keeps its own", async () => {
    await using dir = tempDir();
    const path = join(dir.path, DB_FILE);
    schema3Database(path);
    const store = new Store(dir.path);
    try {
      expect(store.deleteSessions([S2])).toEqual(new Set([S2]));
      store.compact();
      expect(store.journal(S2, 0, 100)).toEqual([]);
      const keys = new Database(path, { readonly: true });
      expect(keys.query("SELECT id FROM journal_sessions ORDER BY id").all()).toEqual([{ id: S1 }, { id: GONE }]);
      expect(count(keys, "SELECT COUNT(*) AS n FROM journal_epochs")).toBe(4);
      keys.close();
      // GONE's pending purge (from before the migration) is done; the rows of its return remain.
      expect(store.journal(GONE, 0, 100).map((r) => r.envelope)).toEqual([envelope(1, "back 1"), envelope(2, "back 2")]);
      // A deleted id that comes back starts a journal of its own, with new keys.
      store.record({ sessionId: S2, epoch: E1, eventId: 1, envelope: envelope(1, "again"), timestamp: 20 }, () => {});
      store.flush();
      expect(store.journal(S2, 0, 100).map((r) => r.envelope)).toEqual([envelope(1, "again")]);
    } finally {
      store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(count(db, "SELECT COUNT(*) AS n FROM purge")).toBe(0);
    expect(count(db, "SELECT COUNT(*) AS n FROM journal WHERE body LIKE '%gone%' OR body LIKE '%s2 e1%'")).toBe(0);
    // S2's first key went with its rows; S2 now has one key and one epoch, GONE keeps its key and both epochs (its id has rows).
    expect(db.query("SELECT s.id, COUNT(e.key) AS epochs FROM journal_sessions s JOIN journal_epochs e ON e.session = s.key GROUP BY s.id ORDER BY s.id").all()).toEqual([
      { id: S1, epochs: 2 },
      { id: S2, epochs: 1 },
      { id: GONE, epochs: 2 },
    ]);
    db.close();
  });
});
