/**
 * The store across a gap (another connection's lock held past the writer's wait): degraded while it
 * is open, recording on again once its markers are written; catalog writes made meanwhile land, a
 * session started meanwhile included; the connection is not closed as idle with a gap unwritten.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MAX_GAP_SESSIONS, RECORDING_GAP_TYPE } from "../../../src/store/journal-gap.ts";
import { MAX_PENDING_ENTRIES } from "../../../src/store/journal-writer.ts";
import { Store, type JournalEntry, type RecordingDegraded } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const IDLE_MS = 50;
const entry = (sessionId: string, eventId: number): JournalEntry => ({ sessionId, epoch: "e", eventId, envelope: JSON.stringify({ id: eventId }), timestamp: 1000 + eventId });
const newSession = (id: string) => ({ id, workspace: "/w", createdAt: 1, agentSessionId: `a-${id}`, profile: null });
const types = (store: Store, id: string) => store.journal(id, 0, 100).map((r) => (JSON.parse(r.envelope) as { type?: string }).type ?? r.eventId);

describe("a gap in recording", () => {
  test("degraded while open, then recording again; what the catalog was told meanwhile lands, and the gap is marked in each journal", async () => {
    await using dir = tempDir();
    const told: RecordingDegraded[] = [];
    const store = new Store(dir.path, { idleCloseMs: IDLE_MS, listener: { degraded: (status) => told.push(status), resumed: () => {} } });
    store.sessionStarted(newSession("s1"));
    store.record(entry("s1", 1), () => {});
    store.flush();
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    let released = 0;
    for (let id = 2; id <= MAX_PENDING_ENTRIES + 1; id++) store.record(entry("s1", id), () => released++);
    expect(released).toBe(MAX_PENDING_ENTRIES);
    expect(told.length).toBe(1);
    expect(store.degraded?.reason).toBe("write_failed");
    // Meanwhile: a session starts, is renamed and publishes; the first one ends.
    store.sessionStarted(newSession("s2"));
    store.metadataChanged("s2", "first name", {});
    store.metadataChanged("s2", "second name", {});
    for (let id = 1; id <= 5; id++) store.record(entry("s2", id), () => released++);
    store.sessionEnded("s1", "closed");
    expect(released).toBe(MAX_PENDING_ENTRIES + 5);
    await Bun.sleep(4 * IDLE_MS); // past the idle time: the connection stays open, the gap unwritten
    expect(store.isOpen).toBe(true);
    blocker.run("ROLLBACK");
    blocker.close();
    await until(() => store.degraded === null, 5000, "the gap written");
    expect(told.length).toBe(1);
    expect(store.session("s1")?.state).toBe("closed");
    expect(store.session("s2")?.displayName).toBe("second name");
    expect(types(store, "s1")).toEqual([1, RECORDING_GAP_TYPE]);
    expect(types(store, "s2")).toEqual([RECORDING_GAP_TYPE]);
    const gap = JSON.parse(store.journal("s1", 0, 100)[1]!.envelope).data;
    expect(gap).toMatchObject({ notRecorded: MAX_PENDING_ENTRIES, firstEventId: 2, lastEventId: MAX_PENDING_ENTRIES + 1 });
    // Recording goes on: an entry is committed before it is released.
    let durable = false;
    store.record(entry("s2", 6), () => (durable = true));
    expect(durable).toBe(false);
    await until(() => durable, 5000, "the entry committed");
    expect(types(store, "s2")).toEqual([RECORDING_GAP_TYPE, 6]);
    // A second lock later opens a second gap, told again.
    const again = new Database(join(dir.path, "svc.db"));
    again.run("BEGIN EXCLUSIVE");
    for (let id = 7; id < 7 + MAX_PENDING_ENTRIES; id++) store.record(entry("s2", id), () => {});
    expect(told.length).toBe(2);
    again.run("ROLLBACK");
    again.close();
    await until(() => store.degraded === null, 5000, "the second gap written");
    expect(types(store, "s2")).toEqual([RECORDING_GAP_TYPE, 6, RECORDING_GAP_TYPE]);
    store.close();
  });

  test("a gap that passes its bounds is told again, as lasting: recording does not resume", async () => {
    await using dir = tempDir();
    const told: [RecordingDegraded, boolean][] = [];
    const store = new Store(dir.path, { listener: { degraded: (status, transient) => told.push([status, transient]), resumed: () => {} } });
    store.sessionStarted(newSession("s1"));
    store.flush();
    const blocker = new Database(join(dir.path, "svc.db"));
    blocker.run("BEGIN EXCLUSIVE");
    for (let id = 1; id <= MAX_PENDING_ENTRIES; id++) store.record(entry("s1", id), () => {});
    expect(told.map(([, transient]) => transient)).toEqual([true]);
    // More sessions publish than a gap can describe.
    for (let n = 0; n <= MAX_GAP_SESSIONS; n++) store.record(entry(`other-${n}`, 1), () => {});
    expect(told.map(([, transient]) => transient)).toEqual([true, false]);
    expect(told[1]![0].error).toContain("too many sessions");
    blocker.run("ROLLBACK");
    blocker.close();
    store.close();
  });
});
