/** A deleted session's journal is invisible at once, even when its id comes back before compaction. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../../src/store/database.ts";
import { MIGRATIONS, migrate } from "../../../src/store/migrations.ts";
import { Store, type JournalEntry } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const entry = (eventId: number, epoch: string): JournalEntry => ({
  sessionId: "s1",
  epoch,
  eventId,
  envelope: JSON.stringify({ id: eventId }),
  timestamp: 1000 + eventId,
});
const newSession = { id: "s1", workspace: "/w", createdAt: 1, agentSessionId: "a1", profile: null };
const ids = (store: Store) => store.journal("s1", 0, 100).map((r) => `${r.epoch}:${r.eventId}`);

describe("deleted journals", () => {
  test("an id reused after a delete starts with an empty journal, before and after compaction", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    store.sessionStarted(newSession);
    for (let id = 1; id <= 3; id++) store.record(entry(id, "old"), () => {});
    store.flush();
    expect(ids(store)).toEqual(["old:1", "old:2", "old:3"]);

    expect(store.deleteSessions(["s1"])).toEqual(new Set(["s1"]));
    expect(store.session("s1")).toBeNull();
    store.sessionStarted(newSession);
    expect(ids(store)).toEqual([]);
    expect(store.recent("s1", 100, 1 << 20)).toEqual({ records: [], omitted: 0 });
    expect(store.journalChars("s1")).toBe(0);
    store.record(entry(1, "new"), () => {});
    store.flush();
    expect(ids(store)).toEqual(["new:1"]);
    store.compact();
    expect(ids(store)).toEqual(["new:1"]);
    // Deleted again: its new rows go too.
    store.deleteSessions(["s1"]);
    store.sessionStarted(newSession);
    expect(ids(store)).toEqual([]);
    store.close();
  });

  test("an id reused while compaction runs (journal.seq taken again once the deleted rows are gone) loses and mixes no rows", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    store.sessionStarted(newSession);
    // The deleted session's rows are the newest of the journal: removing them lowers MAX(seq), so
    // the next row takes a seq the purge entry still covers.
    for (let id = 1; id <= 3; id++) store.record(entry(id, "old"), () => {});
    store.flush();
    const peek = new Database(join(dir.path, DB_FILE), { readonly: true });
    const garbageLeft = () => (peek.query("SELECT COUNT(*) AS n FROM journal").get() as { n: number }).n;
    const purgeLeft = () => (peek.query("SELECT COUNT(*) AS n FROM purge").get() as { n: number }).n;
    store.deleteSessions(["s1"]);
    // Every turn of the loop, the moment the compactor has removed the rows but not yet its purge entry, the id comes back.
    let reused = false;
    for (let turn = 0; turn < 1000 && purgeLeft() > 0; turn++) {
      if (garbageLeft() === 0) {
        store.sessionStarted(newSession);
        store.record(entry(1, "new"), () => {});
        store.flush();
        reused = true;
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!reused) {
      // The compactor closed the window itself (rows and purge entry in one step): reuse right after.
      store.sessionStarted(newSession);
      store.record(entry(1, "new"), () => {});
      store.flush();
    }
    expect(ids(store)).toEqual(["new:1"]);
    store.compact();
    expect(ids(store)).toEqual(["new:1"]);
    store.record(entry(2, "new"), () => {});
    store.flush();
    expect(ids(store)).toEqual(["new:1", "new:2"]);
    peek.close();
    store.close();
  });

  test("a database from before compaction (schema 2) migrates, and its sessions delete and compact", async () => {
    await using dir = tempDir();
    const old = new Database(join(dir.path, DB_FILE), { create: true });
    old.run("PRAGMA auto_vacuum = INCREMENTAL");
    migrate(old, MIGRATIONS.slice(0, 2));
    old.run("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id, state) VALUES ('s1', '/w', 1, 2, 'a1', 'closed')");
    for (let id = 1; id <= 3; id++) old.query("INSERT INTO journal (session_id, epoch, event_id, type, envelope) VALUES ('s1', 'old', ?, 'session_update', '{}')").run(id);
    old.close();

    const store = new Store(dir.path);
    expect(ids(store)).toEqual(["old:1", "old:2", "old:3"]);
    expect(store.deleteSessions(["s1"])).toEqual(new Set(["s1"]));
    expect(ids(store)).toEqual([]);
    store.compact();
    store.close();
    const db = new Database(join(dir.path, DB_FILE), { readonly: true });
    expect(db.query("SELECT COUNT(*) AS n FROM journal").get()).toEqual({ n: 0 });
    expect(db.query("SELECT COUNT(*) AS n FROM purge").get()).toEqual({ n: 0 });
    db.close();
  });
});
