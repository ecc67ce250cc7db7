import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/database.ts";
import { JournalWriter, MAX_PENDING_ENTRIES, type JournalEntry } from "../../../src/store/journal-writer.ts";
import { journalRows } from "../../helpers/journal-rows.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const entry = (eventId: number, sessionId = "s1"): JournalEntry => ({
  sessionId,
  epoch: "epoch-1",
  eventId,
  envelope: JSON.stringify({ id: eventId, v: 1, type: "session_update", data: {} }),
  timestamp: 1000 + eventId,
});

const journalled = (db: Database) => journalRows(db).map((r) => r.eventId);
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("journal writer", () => {
  test("commits one tick's appends together, then releases them in order, each already on disk", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    // A second connection sees only what was committed.
    const reader = new Database(join(dir.path, "svc.db"), { readonly: true });
    const writer = new JournalWriter(db, () => {});
    const released: number[] = [];
    const seenOnDisk: number[][] = [];
    for (let id = 1; id <= 5; id++)
      writer.append(entry(id), () => {
        released.push(id);
        seenOnDisk.push(journalled(reader));
      });
    expect(released).toEqual([]);
    expect(journalled(reader)).toEqual([]);
    await nextTick();
    await nextTick();
    expect(released).toEqual([1, 2, 3, 4, 5]);
    for (const seen of seenOnDisk) expect(seen).toEqual([1, 2, 3, 4, 5]);
    reader.close();
    db.close();
  });

  test("a full pending queue is committed at once, inside the append that filled it", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    const writer = new JournalWriter(db, () => {});
    let released = 0;
    for (let id = 1; id < MAX_PENDING_ENTRIES; id++) writer.append(entry(id), () => released++);
    expect(released).toBe(0);
    writer.append(entry(MAX_PENDING_ENTRIES), () => released++);
    expect(released).toBe(MAX_PENDING_ENTRIES);
    expect(writer.pendingCount).toBe(0);
    expect(journalled(db).length).toBe(MAX_PENDING_ENTRIES);
    db.close();
  });

  test("a failed write still releases the batch, as not recorded, after reporting once, and records nothing after", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    // In the order things happen: the failure is told before the batch goes out, so what it publishes goes ahead of it.
    const happened: string[] = [];
    const writer = new JournalWriter(db, () => happened.push("failure"));
    writer.append(entry(1), (recorded) => happened.push(`1 ${recorded}`));
    writer.flush();
    db.run("PRAGMA query_only = ON"); // every write now fails, like a read-only database
    writer.append(entry(2), (recorded) => happened.push(`2 ${recorded}`));
    writer.append(entry(3), (recorded) => happened.push(`3 ${recorded}`));
    writer.flush();
    expect(happened).toEqual(["1 true", "failure", "2 false", "3 false"]);
    expect(writer.degraded).toBe(true);
    db.run("PRAGMA query_only = OFF");
    writer.append(entry(4), (recorded) => happened.push(`4 ${recorded}`));
    writer.flush();
    expect(happened.slice(4)).toEqual(["4 false"]);
    expect(journalled(db)).toEqual([1]);
    db.close();
  });

  test("keeps each session's updated_at at its newest journaled event", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    db.run("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id) VALUES ('s1', '/w', 1, 1, 's1'), ('s2', '/w', 1, 1, 's2')");
    const writer = new JournalWriter(db, () => {});
    writer.append(entry(1, "s1"), () => {});
    writer.append(entry(7, "s2"), () => {});
    writer.append(entry(2, "s1"), () => {});
    writer.flush();
    const rows = db.query("SELECT id, updated_at FROM sessions ORDER BY id").all();
    expect(rows).toEqual([
      { id: "s1", updated_at: 1002 },
      { id: "s2", updated_at: 1007 },
    ]);
    db.close();
  });
});
