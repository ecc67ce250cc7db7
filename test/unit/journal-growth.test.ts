/**
 * Journal growth (spec Limits, rule in config/config.ts): the pool `--memory-budget-mb` sizes, what
 * pinning a journal cap does to it, and a load's replay growing past the baseline while the pool has
 * room, shrinking back to the baseline when concurrent loads hold it all.
 */
import { describe, expect, test } from "bun:test";
import { JournalGrowthPool, MAX_GROWTH_PER_LOAD_BYTES } from "../../src/sessions/journal-growth.ts";
import { JournalReplay } from "../../src/sessions/journal-replay.ts";
import { Store } from "../../src/store/store.ts";
import { configFixture } from "../helpers/config.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const MiB = 1024 * 1024;
const ENVELOPE_BYTES = 1000;

/** An envelope of exactly ENVELOPE_BYTES characters. */
function envelope(id: number): string {
  const bare = JSON.stringify({ id, v: 1, type: "session_update", data: { pad: "" } });
  return JSON.stringify({ id, v: 1, type: "session_update", data: { pad: "x".repeat(ENVELOPE_BYTES - bare.length) } });
}

/** A store holding session `s1` with `events` envelopes of ENVELOPE_BYTES each. */
function storeWith(dir: string, events: number): Store {
  const store = new Store(dir);
  store.sessionStarted({ id: "s1", workspace: "/w", createdAt: 1, agentSessionId: "a1", profile: null });
  for (let id = 1; id <= events; id++) store.record({ sessionId: "s1", epoch: "e1", eventId: id, envelope: envelope(id), timestamp: id }, () => {});
  store.flush();
  return store;
}

/** The ids of the replayed events, and the truncation marker's data when there is one. */
function summary(envelopes: unknown[]) {
  const marker = envelopes[0] as { type: string; data: Record<string, unknown> };
  const truncated = marker.type === "history_truncated" ? marker.data : null;
  const ids = (truncated ? envelopes.slice(1) : envelopes).map((e) => (e as { id: number }).id);
  return { first: ids[0], count: ids.length, truncated };
}

describe("the growth pool size (config)", () => {
  test.each([
    [[], 64 * MiB],
    [["--memory-budget-mb", "3"], 3 * MiB],
    [["--max-journal-bytes", String(8 * MiB)], 0],
    [["--memory-budget-mb", "3", "--max-journal-events", "10000"], 0],
  ])("%j: %d bytes", async (args, bytes) => {
    await using fx = configFixture();
    expect(fx.resolve(args).limits.journalGrowthPoolBytes).toBe(bytes);
  });
});

describe("journal growth pool", () => {
  test("lends what is free, at most the per-load ceiling; shrink and release hand bytes back, once", () => {
    const pool = new JournalGrowthPool(100);
    const a = pool.borrow(60);
    expect([a.bytes, pool.available]).toEqual([60, 40]);
    const b = pool.borrow(60);
    expect([b.bytes, pool.available]).toEqual([40, 0]);
    expect(pool.borrow(10).bytes).toBe(0);
    a.shrink(20);
    expect([a.bytes, pool.available]).toEqual([20, 40]);
    a.shrink(50); // never grows back
    expect(a.bytes).toBe(20);
    a.release();
    a.release();
    b.release();
    expect(pool.available).toBe(100);
    expect(new JournalGrowthPool(1024 * MiB).borrow(1024 * MiB).bytes).toBe(MAX_GROWTH_PER_LOAD_BYTES);
    expect(new JournalGrowthPool(0).borrow(10).bytes).toBe(0);
  });
});

describe("load replay growth", () => {
  // Baseline: 10 envelopes' worth of bytes (the event cap is not the binding one).
  const baseline = { maxEvents: 1000, maxBytes: 10 * ENVELOPE_BYTES };

  test("pinned (no pool): the baseline, with a truncation marker", async () => {
    await using dir = tempDir();
    const store = storeWith(dir.path, 100);
    const replay = new JournalReplay(store, baseline, new JournalGrowthPool(0)).read("s1");
    expect(summary(replay.envelopes)).toEqual({
      first: 91,
      count: 10,
      truncated: { reason: "replay_window_exceeded", truncatedEvents: 90, retainedEvents: 10, maxEvents: 1000, maxBytes: 10_000, fullTranscriptAvailable: true },
    });
    expect(replay.lease.bytes).toBe(0);
    store.close();
  });

  test("unpinned: grows into the pool, keeps only what it used past the baseline until released", async () => {
    await using dir = tempDir();
    const store = storeWith(dir.path, 30);
    const pool = new JournalGrowthPool(50 * ENVELOPE_BYTES);
    const replay = new JournalReplay(store, baseline, pool).read("s1");
    expect(summary(replay.envelopes)).toEqual({ first: 1, count: 30, truncated: null });
    expect(replay.lease.bytes).toBe(20 * ENVELOPE_BYTES);
    expect(pool.available).toBe(30 * ENVELOPE_BYTES);
    replay.lease.release();
    expect(pool.available).toBe(50 * ENVELOPE_BYTES);
    store.close();
  });

  test("the event cap grows with the byte cap, in proportion", async () => {
    await using dir = tempDir();
    const store = storeWith(dir.path, 100);
    // 10 events or 100 envelopes' bytes; the pool doubles the bytes, so the events too.
    const replay = new JournalReplay(store, { maxEvents: 10, maxBytes: 100 * ENVELOPE_BYTES }, new JournalGrowthPool(100 * ENVELOPE_BYTES)).read("s1");
    expect(summary(replay.envelopes)).toMatchObject({ first: 81, count: 20, truncated: { maxEvents: 20, maxBytes: 200 * ENVELOPE_BYTES } });
    // 20 envelopes are well within the baseline bytes: nothing is held from the pool.
    expect(replay.lease.bytes).toBe(0);
    store.close();
  });

  test("concurrent loads share the pool: one that finds it held gets the baseline, and grows again once it is released", async () => {
    await using dir = tempDir();
    const store = storeWith(dir.path, 100);
    const pool = new JournalGrowthPool(40 * ENVELOPE_BYTES);
    const loads = new JournalReplay(store, baseline, pool);
    const first = loads.read("s1");
    expect(summary(first.envelopes)).toMatchObject({ first: 51, count: 50 });
    expect(pool.available).toBe(0);
    // The first reply is not sent yet: the second load gets the baseline.
    const second = loads.read("s1");
    expect(summary(second.envelopes)).toMatchObject({ first: 91, count: 10, truncated: { maxBytes: 10 * ENVELOPE_BYTES } });
    second.lease.release();
    first.lease.release();
    const third = loads.read("s1");
    expect(summary(third.envelopes)).toMatchObject({ first: 51, count: 50 });
    third.lease.release();
    expect(pool.available).toBe(40 * ENVELOPE_BYTES);
    store.close();
  });
});
