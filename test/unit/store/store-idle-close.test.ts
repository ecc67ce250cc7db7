/** The store closes its idle database connection (idle RSS) and reopens it on the next use, losing nothing. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Store, type JournalEntry } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const IDLE_MS = 50;
const entry = (eventId: number): JournalEntry => ({ sessionId: "s1", epoch: "e", eventId, envelope: JSON.stringify({ id: eventId }), timestamp: 1000 + eventId });
const newSession = { id: "s1", workspace: "/w", createdAt: 1, agentSessionId: "a1", profile: null };

describe("idle close", () => {
  test("an unused connection closes; the next read or write reopens it", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path, { idleCloseMs: IDLE_MS });
    store.sessionStarted(newSession);
    expect(store.isOpen).toBe(true);
    await until(() => !store.isOpen, 5000, "the idle close");
    expect(store.session("s1")?.id).toBe("s1");
    expect(store.isOpen).toBe(true);
    await until(() => !store.isOpen, 5000, "the idle close");
    let durable = false;
    store.record(entry(1), () => (durable = true));
    await until(() => durable, 5000, "the entry committed");
    expect(store.journal("s1", 0, 10).map((r) => r.eventId)).toEqual([1]);
    await until(() => !store.isOpen, 5000, "the idle close");
    store.close();
  });

  test("a batch waiting for another connection's lock keeps it open until it is committed", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path, { idleCloseMs: IDLE_MS });
    store.sessionStarted(newSession);
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    let durable = false;
    store.record(entry(1), () => (durable = true));
    await Bun.sleep(4 * IDLE_MS); // past the idle time, with the batch still waiting
    expect(durable).toBe(false);
    expect(store.isOpen).toBe(true);
    blocker.run("ROLLBACK");
    blocker.close();
    await until(() => durable, 5000, "the held entry committed");
    expect(store.journal("s1", 0, 10).map((r) => r.eventId)).toEqual([1]);
    await until(() => !store.isOpen, 5000, "the idle close");
    store.close();
  });

  test("once recording has stopped for good (a failed write), a reopen still reads the history; it records nothing", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path, { idleCloseMs: IDLE_MS });
    store.sessionStarted(newSession);
    store.record(entry(1), () => {});
    store.flush();
    // Every journal write now fails inside SQLite, as a full disk would.
    const db = new Database(join(dir.path, "svc.db"));
    db.run("CREATE TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    db.close();
    let recorded: boolean | undefined;
    store.record(entry(2), (done) => (recorded = done));
    store.flush();
    expect(recorded).toBe(false);
    expect(store.degraded).toMatchObject({ reason: "write_failed", transient: false });
    await until(() => !store.isOpen, 5000, "the idle close");
    // Not an empty history: the catalog and the journal as they were.
    expect(store.sessions("/w", false, 10, null).map((r) => r.id)).toEqual(["s1"]);
    expect(store.journal("s1", 0, 10).map((r) => r.eventId)).toEqual([1]);
    store.record(entry(3), (done) => (recorded = done));
    expect(recorded).toBe(false);
    store.close();
  });
});
