/** A deleted session's journal is invisible at once, even when its id comes back before compaction. */
import { describe, expect, test } from "bun:test";
import { Store, type JournalEntry } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const entry = (eventId: number, epoch: string): JournalEntry => ({
  sessionId: "s1",
  epoch,
  eventId,
  type: "session_update",
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
});
