/** A reopen after the idle close that meets another process's write lock is transient: nothing is lost, recording resumes. */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { Store, type JournalEntry } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const IDLE_MS = 50;
const entry = (eventId: number): JournalEntry => ({ sessionId: "s1", epoch: "e", eventId, envelope: JSON.stringify({ id: eventId }), timestamp: 1000 + eventId });
const newSession = { id: "s1", workspace: "/w", createdAt: 1, agentSessionId: "a1", profile: null };

test("a lock held at the reopen is waited out: the entry and the rename land, recording is never degraded", async () => {
  await using dir = tempDir();
  const store = new Store(dir.path, { idleCloseMs: IDLE_MS });
  store.sessionStarted(newSession);
  await until(() => !store.isOpen, 5000, "the idle close");
  const blocker = new Database(join(dir.path, "svc.db"));
  blocker.run("BEGIN EXCLUSIVE");
  let durable = false;
  store.record(entry(1), () => (durable = true));
  store.metadataChanged("s1", "renamed", { displayName: "renamed" });
  expect(store.degraded).toBeNull();
  expect(store.isOpen).toBe(true);
  blocker.run("ROLLBACK");
  blocker.close();
  await until(() => durable, 5000, "the held entry committed");
  expect(store.degraded).toBeNull();
  expect(store.journal("s1", 0, 10).map((r) => r.eventId)).toEqual([1]);
  expect(store.session("s1")?.displayName).toBe("renamed");
  store.close();
});
