/** The journal writer and a lock another connection holds: waited for on timers, in order, bounded. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/database.ts";
import { JournalWriter, MAX_PENDING_ENTRIES, type JournalEntry } from "../../../src/store/journal-writer.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const entry = (eventId: number): JournalEntry => ({
  sessionId: "s1",
  epoch: "epoch-1",
  eventId,
  envelope: JSON.stringify({ id: eventId }),
  timestamp: 1000 + eventId,
});
const journalled = (db: Database) => (db.query("SELECT event_id FROM journal ORDER BY seq").all() as { event_id: number }[]).map((r) => r.event_id);
const names = (db: Database) => (db.query("SELECT display_name FROM sessions WHERE id = 's1'").get() as { display_name: string } | null)?.display_name;

describe("journal writer under another connection's lock", () => {
  test("entries and catalog changes wait, in order, and commit once the lock goes; nothing degrades", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    db.run("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id) VALUES ('s1', 'w', 1, 1, 'a')");
    const failures: unknown[] = [];
    const writer = new JournalWriter(db, (error) => failures.push(error));
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    const released: number[] = [];
    // A catalog change that finds the lock starts the wait instead of failing.
    writer.change(() => db.run("UPDATE sessions SET display_name = 'renamed' WHERE id = 's1'"));
    expect(writer.waiting).toBe(true);
    writer.append(entry(1), () => released.push(1));
    writer.flush();
    // Another one queues behind the waiting batch.
    writer.change(() => db.run("UPDATE sessions SET display_name = 'renamed twice' WHERE id = 's1'"));
    writer.append(entry(2), () => released.push(2));
    await Bun.sleep(150); // a few retries' worth; still locked
    expect(released).toEqual([]);
    expect(failures).toEqual([]);
    blocker.run("ROLLBACK");
    await until(() => released.length === 2, 5000, "the held entries");
    expect(released).toEqual([1, 2]);
    expect(journalled(db)).toEqual([1, 2]);
    expect(names(db)).toBe("renamed twice");
    expect(writer.waiting).toBe(false);
    expect(failures).toEqual([]);
    blocker.close();
    db.close();
  });

  test("a queue that reaches its bound while waiting ends the wait: one last try, then every entry is released and the failure told once", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    const failures: unknown[] = [];
    const writer = new JournalWriter(db, (error) => failures.push(error));
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    let released = 0;
    writer.append(entry(1), () => released++);
    writer.flush();
    expect(writer.waiting).toBe(true);
    for (let id = 2; id <= MAX_PENDING_ENTRIES; id++) writer.append(entry(id), () => released++);
    expect(released).toBe(MAX_PENDING_ENTRIES);
    expect(failures.length).toBe(1);
    expect(writer.degraded).toBe(true);
    blocker.run("ROLLBACK");
    blocker.close();
    expect(journalled(db)).toEqual([]);
    db.close();
  });
});
