/**
 * Schema 5: the journal's rows are chunks (src/store/journal-chunk.ts). A commit writes a session's
 * run of consecutive ids of one epoch as one row, compressed once that pays; readers give back one
 * record per event, in order, and page from any position, inside a chunk or at its edge.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { zstdCompressSync } from "node:zlib";
import { DB_FILE } from "../../../src/store/database.ts";
import { COMPRESS_FROM_CHARS, CorruptChunkError, MAX_CHUNK_CHARS, MAX_CHUNK_EVENTS, TEXT, ZSTD, decodeChunk } from "../../../src/store/journal-chunk.ts";
import { TOUCH_INTERVAL_MS } from "../../../src/store/journal-writer.ts";
import { Store, type JournalEntry } from "../../../src/store/store.ts";
import { DaemonError } from "../../../src/errors/daemon-error.ts";
import { journalRows } from "../../helpers/journal-rows.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

/** An envelope whose text varies like an agent's answer, `pad` characters longer. */
const envelope = (id: number, pad = 0) =>
  JSON.stringify({ id, v: 1, type: "session_update", data: { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `word ${id * 7919} ${"x".repeat(pad)}` } } } });
const entry = (sessionId: string, eventId: number, epoch = "e1", pad = 0): JournalEntry => ({ sessionId, epoch, eventId, envelope: envelope(eventId, pad), timestamp: 1000 + eventId });

interface ChunkRow {
  seq: number;
  first_event_id: number;
  count: number;
  chars: number;
  encoding: number;
}

function chunks(dir: string): ChunkRow[] {
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  try {
    return db.query("SELECT seq, first_event_id, count, chars, encoding FROM journal ORDER BY seq").all() as ChunkRow[];
  } finally {
    db.close();
  }
}

function started(store: Store, ...ids: string[]): void {
  for (const id of ids) store.sessionStarted({ id, workspace: "/w", createdAt: 1, agentSessionId: id, profile: "generic" });
}

const ids = (records: readonly { epoch: string; eventId: number }[]) => records.map((r) => `${r.epoch}:${r.eventId}`);

describe("journal chunks", () => {
  test("one commit's run of a session's events is one row; interleaved sessions keep their own order", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    try {
      started(store, "a", "b");
      for (let id = 1; id <= 5; id++) {
        store.record(entry("a", id), () => {});
        store.record(entry("b", id), () => {});
      }
      store.flush();
      expect(chunks(dir.path).map((c) => [c.first_event_id, c.count])).toEqual([
        [1, 5],
        [1, 5],
      ]);
      expect(store.journal("a", 0, 100).map((r) => r.envelope)).toEqual([1, 2, 3, 4, 5].map((id) => envelope(id)));
      expect(ids(store.journal("b", 0, 100))).toEqual(["e1:1", "e1:2", "e1:3", "e1:4", "e1:5"]);
    } finally {
      store.close();
    }
  });

  test("a gap in ids and a new epoch each start a new chunk", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    try {
      started(store, "a");
      for (const id of [1, 2, 4]) store.record(entry("a", id), () => {});
      // The new epoch's ids follow on from the old one's: still a chunk of its own.
      for (const id of [5, 6]) store.record(entry("a", id, "e2"), () => {});
      store.flush();
      expect(chunks(dir.path).map((c) => [c.first_event_id, c.count])).toEqual([
        [1, 2],
        [4, 1],
        [5, 2],
      ]);
      expect(ids(store.journal("a", 0, 100))).toEqual(["e1:1", "e1:2", "e1:4", "e2:5", "e2:6"]);
    } finally {
      store.close();
    }
  });

  test("a catalog change queued behind a lock splits the chunk: it lands after the events before it and before those after it", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    try {
      started(store, "a");
      store.flush();
      const outside = new Database(join(dir.path, DB_FILE));
      // What the journal held when the rename was written.
      outside.run("CREATE TABLE seen (events INTEGER)");
      outside.run("CREATE TRIGGER note_rename AFTER UPDATE OF display_name ON sessions BEGIN INSERT INTO seen SELECT COALESCE(SUM(count), 0) FROM journal; END");
      outside.run("BEGIN IMMEDIATE");
      for (const id of [1, 2]) store.record(entry("a", id), () => {});
      store.flush(); // finds the lock: the batch waits, and what follows queues behind it
      store.metadataChanged("a", "renamed", {});
      for (const id of [3, 4]) store.record(entry("a", id), () => {});
      outside.run("COMMIT");
      await until(() => store.journal("a", 0, 100).length === 4, 5000, "the held batch committed");
      expect(outside.query("SELECT events FROM seen").all()).toEqual([{ events: 2 }]);
      outside.close();
      expect(chunks(dir.path).map((c) => [c.first_event_id, c.count])).toEqual([
        [1, 2],
        [3, 2],
      ]);
      expect(store.session("a")!.displayName).toBe("renamed");
    } finally {
      store.close();
    }
  });

  test("chunks are bounded in events and characters; an envelope with a line break is a chunk of its own and reads back whole", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    try {
      started(store, "a");
      const total = MAX_CHUNK_EVENTS + 10;
      for (let id = 1; id <= total; id++) store.record(entry("a", id), () => {});
      const big = { sessionId: "a", epoch: "e1", eventId: total + 1, envelope: envelope(total + 1, MAX_CHUNK_CHARS), timestamp: 5000 };
      store.record(big, () => {});
      const broken = { sessionId: "a", epoch: "e1", eventId: total + 2, envelope: '{"id":1,\n"text":"two\nlines"}', timestamp: 5001 };
      store.record(broken, () => {});
      store.record(entry("a", total + 3), () => {});
      store.flush();
      expect(chunks(dir.path).map((c) => c.count)).toEqual([MAX_CHUNK_EVENTS, 10, 1, 1, 1]);
      const records = store.journal("a", 0, 500);
      expect(records.map((r) => r.eventId)).toEqual(Array.from({ length: total + 3 }, (_, i) => i + 1));
      expect(records[total]!.envelope).toBe(big.envelope);
      expect(records[total + 1]!.envelope).toBe(broken.envelope);
    } finally {
      store.close();
    }
  });

  test("a chunk is compressed once it is large enough and smaller for it; a reopened store reads it back", async () => {
    await using dir = tempDir();
    const first = new Store(dir.path);
    started(first, "small", "large");
    first.record(entry("small", 1), () => {});
    for (let id = 1; id <= 40; id++) first.record(entry("large", id), () => {});
    first.flush();
    first.close();
    const rows = chunks(dir.path);
    expect(rows.map((c) => [c.count, c.encoding])).toEqual([
      [1, TEXT],
      [40, ZSTD],
    ]);
    expect(rows[0]!.chars).toBeLessThan(COMPRESS_FROM_CHARS);
    expect(rows[1]!.chars).toBe(Array.from({ length: 40 }, (_, i) => envelope(i + 1).length).reduce((a, b) => a + b));
    const db = new Database(join(dir.path, DB_FILE), { readonly: true });
    const stored = (db.query("SELECT length(body) AS n FROM journal WHERE count = 40").get() as { n: number }).n;
    db.close();
    expect(stored).toBeLessThan(rows[1]!.chars / 2);

    const again = new Store(dir.path);
    try {
      expect(again.journal("large", 0, 100).map((r) => r.envelope)).toEqual(Array.from({ length: 40 }, (_, i) => envelope(i + 1)));
      expect(again.journalChars("large")).toBe(rows[1]!.chars);
    } finally {
      again.close();
    }
  });

  test("pages resume inside a chunk and across chunk edges: every limit and byte budget gives each record once, in order", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    try {
      started(store, "a");
      // Three commits of 7, 1 and 12 events: chunk edges at 7 and 8.
      let id = 0;
      for (const size of [7, 1, 12]) {
        for (let i = 0; i < size; i++) store.record(entry("a", ++id), () => {});
        store.flush();
      }
      const all = Array.from({ length: id }, (_, i) => i + 1);
      for (const limit of [1, 2, 3, 7, 8, 19, 20, 500]) {
        const seen: number[] = [];
        let after = 0;
        for (let pages = 0; pages < 100; pages++) {
          const { records, hasMore } = store.journalPage("a", after, limit, Number.MAX_SAFE_INTEGER);
          expect(records.length).toBeLessThanOrEqual(limit);
          seen.push(...records.map((r) => r.eventId));
          if (!hasMore) break;
          after = records.at(-1)!.position;
        }
        expect(seen).toEqual(all);
      }
      // A byte budget smaller than one envelope still gives one record per page.
      const tiny = store.journalPage("a", 0, 500, 1);
      expect(tiny.records.map((r) => r.eventId)).toEqual([1]);
      expect(tiny.hasMore).toBe(true);
      // A position past a chunk's last index resumes at the next chunk.
      const third = store.journalPage("a", store.journal("a", 0, 7).at(-1)!.position, 3, Number.MAX_SAFE_INTEGER);
      expect(third.records.map((r) => r.eventId)).toEqual([8, 9, 10]);
    } finally {
      store.close();
    }
  });

  test("the newest records span chunks, oldest first, within both bounds; the rest are counted as omitted", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    try {
      started(store, "a");
      let id = 0;
      for (const size of [5, 5, 5]) {
        for (let i = 0; i < size; i++) store.record(entry("a", ++id), () => {});
        store.flush();
      }
      const newest = store.recent("a", 7, Number.MAX_SAFE_INTEGER);
      expect(newest.records.map((r) => r.eventId)).toEqual([9, 10, 11, 12, 13, 14, 15]);
      expect(newest.omitted).toBe(8);
      const bytes = envelope(15).length + envelope(14).length + envelope(13).length;
      expect(store.recent("a", 100, bytes).records.map((r) => r.eventId)).toEqual([13, 14, 15]);
      expect(store.recent("a", 0, 1000).records).toEqual([]);
    } finally {
      store.close();
    }
  });

  test("a damaged chunk fails the read with 500 journal_damaged; a frame that would inflate past its row's size is refused", async () => {
    await using dir = tempDir();
    const store = new Store(dir.path);
    started(store, "a", "bomb", "count");
    for (let id = 1; id <= 40; id++) store.record(entry("a", id), () => {});
    store.record(entry("bomb", 1), () => {});
    store.record(entry("count", 1), () => {});
    store.record(entry("count", 2), () => {});
    store.flush();
    store.close();
    const db = new Database(join(dir.path, DB_FILE));
    const key = (id: string) => `(SELECT key FROM journal_sessions WHERE id = '${id}')`;
    db.run(`UPDATE journal SET body = randomblob(300) WHERE session = ${key("a")}`);
    db.query(`UPDATE journal SET encoding = 1, body = ?1 WHERE session = ${key("bomb")}`).run(zstdCompressSync(Buffer.alloc(64 * 1024 * 1024, 97)));
    db.run(`UPDATE journal SET count = 3 WHERE session = ${key("count")}`);
    db.close();
    const again = new Store(dir.path);
    try {
      for (const id of ["a", "bomb", "count"]) {
        let caught: unknown;
        try {
          again.journal(id, 0, 100);
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(DaemonError);
        expect(caught).toMatchObject({ status: 500, code: "journal_damaged" });
      }
      expect(() => again.recent("a", 10, 1000)).toThrow(DaemonError);
    } finally {
      again.close();
    }
    expect(() => decodeChunk(1, 7, "{}", 1, 2)).toThrow(CorruptChunkError);
    expect(() => decodeChunk(1, ZSTD, "not a blob", 1, 10)).toThrow(CorruptChunkError);
  });

  test("updated_at follows events at most once per interval of event time, and exactly when the session ends", async () => {
    await using dir = tempDir();
    let now = 0;
    const store = new Store(dir.path, { now: () => now });
    try {
      started(store, "a");
      const at = (eventId: number, timestamp: number) => store.record({ ...entry("a", eventId), timestamp }, () => {});
      at(1, 10_000);
      store.flush();
      expect(store.session("a")!.updatedAt).toBe(10_000);
      at(2, 10_000 + TOUCH_INTERVAL_MS - 1);
      store.flush();
      expect(store.session("a")!.updatedAt).toBe(10_000);
      at(3, 10_000 + TOUCH_INTERVAL_MS);
      store.flush();
      expect(store.session("a")!.updatedAt).toBe(10_000 + TOUCH_INTERVAL_MS);
      at(4, 10_000 + TOUCH_INTERVAL_MS + 5);
      now = 10_000 + TOUCH_INTERVAL_MS + 6;
      store.sessionEnded("a", "closed");
      store.flush();
      expect(store.session("a")!.updatedAt).toBe(now);
    } finally {
      store.close();
    }
    // The events are all there, whatever the touches did.
    const db = new Database(join(dir.path, DB_FILE), { readonly: true });
    expect(journalRows(db, "a").map((r) => r.eventId)).toEqual([1, 2, 3, 4]);
    db.close();
  });
});
