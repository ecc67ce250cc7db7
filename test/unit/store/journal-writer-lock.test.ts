/** The journal writer and a lock another connection holds: waited for on timers, in order, bounded; past the wait, a gap that is written once the lock goes. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/database.ts";
import { MAX_GAP_SESSIONS, RECORDING_GAP_TYPE } from "../../../src/store/journal-gap.ts";
import { JournalWriter, MAX_PENDING_ENTRIES, type JournalEntry } from "../../../src/store/journal-writer.ts";
import { journalRows } from "../../helpers/journal-rows.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const entry = (eventId: number): JournalEntry => ({
  sessionId: "s1",
  epoch: "epoch-1",
  eventId,
  envelope: JSON.stringify({ id: eventId }),
  timestamp: 1000 + eventId,
});
const journalled = (db: Database) => journalRows(db).map((r) => r.eventId);
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

  test("a queue that reaches its bound while waiting opens a gap: every entry is released, counted and not kept; once the lock goes a marker is written and recording resumes", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    db.run("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id) VALUES ('s1', 'w', 1, 1, 'a')");
    const failures: unknown[] = [];
    const gaps: string[] = [];
    const writer = new JournalWriter(db, (error) => failures.push(error), { opened: () => gaps.push("opened"), closed: () => gaps.push("closed") });
    writer.append(entry(1), () => {});
    writer.flush();
    expect(journalled(db)).toEqual([1]);
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    let released = 0;
    const release = (recorded: boolean) => {
      // The gap is told before the held batch goes out (what it publishes goes ahead), each entry as not recorded.
      expect([recorded, gaps]).toEqual([false, ["opened"]]);
      released++;
    };
    writer.append(entry(2), release);
    writer.flush();
    expect(writer.waiting).toBe(true);
    for (let id = 3; id <= MAX_PENDING_ENTRIES + 1; id++) writer.append(entry(id), release);
    expect(released).toBe(MAX_PENDING_ENTRIES);
    expect(gaps).toEqual(["opened"]);
    // While the gap is open, entries are released at once and not kept; catalog writes are kept (a rename replaces the earlier one).
    for (let id = MAX_PENDING_ENTRIES + 2; id <= MAX_PENDING_ENTRIES + 99; id++) writer.append(entry(id), release);
    // A notice a bus put ahead of the entries it stood before (it took the first one's id, they moved up one) extends the run by one.
    writer.appendAhead(entry(2));
    expect(released).toBe(MAX_PENDING_ENTRIES + 98);
    expect(writer.pendingCount).toBe(0);
    writer.change(() => db.run("UPDATE sessions SET display_name = 'first' WHERE id = 's1'"), "name");
    writer.change(() => db.run("UPDATE sessions SET display_name = 'second' WHERE id = 's1'"), "name");
    expect(writer.waiting).toBe(true);
    expect(writer.degraded).toBe(false);
    blocker.run("ROLLBACK");
    blocker.close();
    await until(() => gaps.length === 2, 5000, "the gap written");
    expect(gaps).toEqual(["opened", "closed"]);
    expect(writer.waiting).toBe(false);
    expect(failures).toEqual([]);
    expect(names(db)).toBe("second");
    const rows = journalRows(db);
    expect(rows.map((r) => r.eventId)).toEqual([1, MAX_PENDING_ENTRIES + 100]);
    const marker = JSON.parse(rows[1]!.envelope);
    expect(marker).toMatchObject({ v: 1, type: RECORDING_GAP_TYPE, data: { sessionId: "s1", reason: "locked", notRecorded: MAX_PENDING_ENTRIES + 99, firstEventId: 2, lastEventId: MAX_PENDING_ENTRIES + 100 } });
    // Recording goes on: the next entry is committed before it is released.
    let durable = false;
    writer.append(entry(MAX_PENDING_ENTRIES + 101), () => (durable = true));
    writer.flush();
    expect(durable).toBe(true);
    expect(journalled(db).at(-1)).toBe(MAX_PENDING_ENTRIES + 101);
    db.close();
  });

  test("an open gap that passes its bound on sessions fails for good, once; a gap still locked at stop is dropped", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    const failures: unknown[] = [];
    const writer = new JournalWriter(db, (error) => failures.push(error));
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    writer.append(entry(1), () => {});
    writer.flush();
    for (let id = 2; id <= MAX_PENDING_ENTRIES; id++) writer.append(entry(id), () => {});
    expect(writer.waiting).toBe(true);
    expect(failures).toEqual([]);
    let released = 0;
    for (let n = 0; n <= MAX_GAP_SESSIONS; n++) writer.append({ ...entry(1), sessionId: `other-${n}` }, () => released++);
    expect(released).toBe(MAX_GAP_SESSIONS + 1);
    expect(failures.length).toBe(1);
    expect(writer.degraded).toBe(true);
    expect(writer.waiting).toBe(false);
    writer.stop();
    blocker.run("ROLLBACK");
    blocker.close();
    expect(journalled(db)).toEqual([]);
    db.close();
  });
});
