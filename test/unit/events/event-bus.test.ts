/**
 * The per-session event bus: ids, replay on subscribe (Last-Event-ID / epoch), byte budget,
 * slow-subscriber warning and eviction, close, and the subscriber cap.
 */
import { describe, expect, test } from "bun:test";
import { DaemonError } from "../../../src/errors/daemon-error.ts";
import { DEFAULT_MAX_QUEUED, EventBus, MAX_QUEUED_BYTES, REPLAY_BYTE_BUDGET, RING_MAX_BYTES, type Subscription } from "../../../src/events/event-bus.ts";
import { EventEncodeError, type Frame } from "../../../src/events/frame.ts";

const EPOCH = "epoch-1";
const newBus = (options: { ringSize?: number; maxSubscribers?: number } = {}) =>
  new EventBus({ ringSize: options.ringSize ?? 100, maxSubscribers: options.maxSubscribers ?? 8, now: () => 42, epoch: EPOCH });

const publishN = (bus: EventBus, n: number, pad = 0) => {
  for (let i = 0; i < n; i++) bus.publish("session_update", { n: bus.lastId + 1, pad: "x".repeat(pad) });
};

/** A compact view of frames: ids for id-carrying frames, the type for synthetic ones. */
const view = (frames: readonly Frame[]) => frames.map((f) => f.id ?? f.type);

/** Everything a subscription delivers until it ends (use only once it is known to end). */
async function readToEnd(sub: Subscription): Promise<Frame[]> {
  const out: Frame[] = [];
  for (let batch = await sub.next(); batch !== null; batch = await sub.next()) out.push(...batch);
  return out;
}

/** The batch waiting for the subscriber right now (fails rather than hang when there is none). */
async function ready(sub: Subscription): Promise<Frame[]> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("nothing was ready")), 1000));
  const batch = await Promise.race([sub.next(), timeout]);
  if (batch === null) throw new Error("the subscription ended");
  return batch;
}

describe("ids", () => {
  test("are monotonic from 1 per bus", () => {
    const bus = newBus();
    expect(bus.lastId).toBe(0);
    const frames = [bus.publish("a", {}), bus.publish("b", {}), bus.publish("c", {})];
    expect(frames.map((f) => f!.id)).toEqual([1, 2, 3]);
    expect(bus.lastId).toBe(3);
    expect(newBus().publish("a", {})!.id).toBe(1);
  });

  test("synthetic frames never consume an id and are never replayed", () => {
    const bus = newBus();
    bus.publish("a", {});
    const synthetic = bus.synthetic("slow_client_warning", { queueSize: 1 });
    expect(synthetic.id).toBeUndefined();
    expect(synthetic.envelope._meta.serverTimestamp).toBe(42);
    expect(bus.publish("b", {})!.id).toBe(2);
    const sub = bus.subscribe({ lastEventId: 0, epoch: null })!;
    return ready(sub).then((batch) => expect(view(batch)).toEqual([1, 2, "replay_complete"]));
  });

  test("the envelope carries promptId and originatorClientId when given", () => {
    const frame = newBus().publish("turn_complete", { stopReason: "end_turn" }, { promptId: "p", originatorClientId: "client_x" })!;
    expect(frame.envelope).toMatchObject({ id: 1, v: 1, type: "turn_complete", promptId: "p", originatorClientId: "client_x", _meta: { serverTimestamp: 42 } });
  });
});

describe("replay on subscribe", () => {
  test("without Last-Event-ID the subscriber gets live frames only, and no replay_complete", async () => {
    const bus = newBus();
    publishN(bus, 3);
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("live", {});
    expect(view(await ready(sub))).toEqual([4]);
  });

  test("Last-Event-ID 0 replays the whole ring, then replay_complete, then live frames", async () => {
    const bus = newBus();
    publishN(bus, 3);
    const sub = bus.subscribe({ lastEventId: 0, epoch: EPOCH })!;
    bus.publish("live", {});
    const batch = await ready(sub);
    expect(view(batch)).toEqual([1, 2, 3, "replay_complete", 4]);
    expect(batch[3]!.envelope.data).toEqual({ replayedCount: 3, lastReplayedEventId: 3, lastEventId: 3 });
  });

  test("Last-Event-ID N replays only what follows N", async () => {
    const bus = newBus();
    publishN(bus, 5);
    const batch = await ready(bus.subscribe({ lastEventId: 3, epoch: EPOCH })!);
    expect(view(batch)).toEqual([4, 5, "replay_complete"]);
    expect(batch[2]!.envelope.data).toEqual({ replayedCount: 2, lastReplayedEventId: 5, lastEventId: 5 });
  });

  test("Last-Event-ID equal to the last id replays nothing but still says replay_complete", async () => {
    const bus = newBus();
    publishN(bus, 2);
    const batch = await ready(bus.subscribe({ lastEventId: 2, epoch: EPOCH })!);
    expect(view(batch)).toEqual(["replay_complete"]);
    expect(batch[0]!.envelope.data).toEqual({ replayedCount: 0, lastEventId: 2 });
  });

  test("an epoch mismatch asks for a resync first, then replays the whole ring", async () => {
    const bus = newBus();
    publishN(bus, 4);
    const batch = await ready(bus.subscribe({ lastEventId: 2, epoch: "another-epoch" })!);
    expect(view(batch)).toEqual(["state_resync_required", 1, 2, 3, 4, "replay_complete"]);
    expect(batch[0]!.envelope.data).toEqual({ reason: "epoch_reset", detail: "epoch_mismatch", lastDeliveredId: 2, earliestAvailableId: 1 });
    expect(batch[0]!.id).toBeUndefined();
  });

  test("Last-Event-ID one past the last id (the next id, never issued) is an epoch reset, with or without the epoch", async () => {
    const bus = newBus();
    publishN(bus, 3);
    for (const epoch of [null, EPOCH]) {
      const batch = await ready(bus.subscribe({ lastEventId: 4, epoch })!);
      expect(view(batch)).toEqual(["state_resync_required", 1, 2, 3, "replay_complete"]);
      expect(batch[0]!.envelope.data).toEqual({ reason: "epoch_reset", lastDeliveredId: 4, earliestAvailableId: 1 });
    }
    expect(view(await ready(bus.subscribe({ lastEventId: 3, epoch: EPOCH })!))).toEqual(["replay_complete"]);
  });

  test("an id beyond the last one is an epoch reset (without the mismatch detail)", async () => {
    const bus = newBus();
    publishN(bus, 2);
    const batch = await ready(bus.subscribe({ lastEventId: 9, epoch: null })!);
    expect(view(batch)).toEqual(["state_resync_required", 1, 2, "replay_complete"]);
    expect(batch[0]!.envelope.data).toEqual({ reason: "epoch_reset", lastDeliveredId: 9, earliestAvailableId: 1 });
  });

  test("a gap the ring no longer holds is reported as ring_evicted before the surviving suffix", async () => {
    const bus = newBus({ ringSize: 3 });
    publishN(bus, 6);
    const batch = await ready(bus.subscribe({ lastEventId: 1, epoch: EPOCH })!);
    expect(view(batch)).toEqual(["state_resync_required", 4, 5, 6, "replay_complete"]);
    expect(batch[0]!.envelope.data).toEqual({ reason: "ring_evicted", lastDeliveredId: 1, earliestAvailableId: 4 });
  });

  test("no ring_evicted when the client's last id is just before the oldest retained one", async () => {
    const bus = newBus({ ringSize: 3 });
    publishN(bus, 6);
    expect(view(await ready(bus.subscribe({ lastEventId: 3, epoch: EPOCH })!))).toEqual([4, 5, 6, "replay_complete"]);
  });

  test("replay stops at the 8 MiB byte budget with replay_budget_exceeded, then replay_complete", async () => {
    const bus = newBus();
    publishN(bus, 10, 1 << 20); // ten frames of just over 1 MiB
    const batch = await ready(bus.subscribe({ lastEventId: 0, epoch: EPOCH })!);
    expect(view(batch)).toEqual([1, 2, 3, 4, 5, 6, 7, "state_resync_required", "replay_complete"]);
    expect(batch.slice(0, 7).reduce((n, f) => n + f.bytes, 0)).toBeLessThanOrEqual(REPLAY_BYTE_BUDGET);
    expect(batch[7]!.envelope.data).toEqual({ reason: "replay_budget_exceeded", lastDeliveredId: 7, earliestAvailableId: 8 });
    expect(batch[8]!.envelope.data).toEqual({ replayedCount: 7, lastReplayedEventId: 7, lastEventId: 10 });
  });

  test("replay always delivers at least one frame, even one larger than the budget", async () => {
    const bus = newBus();
    publishN(bus, 1, REPLAY_BYTE_BUDGET + 10);
    publishN(bus, 1);
    const batch = await ready(bus.subscribe({ lastEventId: 0, epoch: EPOCH })!);
    expect(view(batch)).toEqual([1, "state_resync_required", "replay_complete"]);
    expect(batch[1]!.envelope.data).toMatchObject({ reason: "replay_budget_exceeded", lastDeliveredId: 1, earliestAvailableId: 2 });
  });

  test("a replay of an empty bus is just replay_complete", async () => {
    const batch = await ready(newBus().subscribe({ lastEventId: 0, epoch: null })!);
    expect(view(batch)).toEqual(["replay_complete"]);
    expect(batch[0]!.envelope.data).toEqual({ replayedCount: 0, lastEventId: 0 });
  });
});

describe("slow subscribers", () => {
  test("warns once at 75% full, re-arms after a drain, then evicts on overflow while others go on", async () => {
    const bus = newBus();
    const slow = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 16 })!;
    const fast = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 16 })!;
    const fastSeen: Frame[] = [];
    const publishAndKeepFastDrained = async (n: number) => {
      for (let i = 0; i < n; i++) {
        expect(() => bus.publish("session_update", { n: i })).not.toThrow();
        fastSeen.push(...(await ready(fast)));
      }
    };

    // Episode 1: 16 frames fill the queue to the brim (the head, then 15 charged + the warning) without overflowing.
    await publishAndKeepFastDrained(16);
    const first = await ready(slow);
    expect(view(first)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "slow_client_warning", 14, 15, 16]);
    expect(first[13]!.envelope.data).toEqual({ queueSize: 12, maxQueued: 16, lastEventId: 13, queuedBytes: expect.any(Number), maxQueuedBytes: 2 * 1024 * 1024, threshold: "frames" });

    // Episode 2: after the drain the warning is armed again; then the queue overflows. What was
    // queued still goes out, the warning in its place, then the eviction naming the last id delivered.
    await publishAndKeepFastDrained(17);
    expect(slow.ended).toBe(true);
    expect(bus.subscriberCount).toBe(1);
    const rest = await readToEnd(slow);
    expect(view(rest)).toEqual([17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, "slow_client_warning", 30, 31, 32, "client_evicted"]);
    expect(rest.at(-1)!.envelope.data).toMatchObject({ reason: "queue_overflow", droppedAfter: 32, queueSize: 16, maxQueued: 16 });

    // The warnings went to the slow one only: the fast one never saw any.
    await publishAndKeepFastDrained(1);
    expect(view(fastSeen)).toEqual(Array.from({ length: 34 }, (_, i) => i + 1));
  });

  test("a second episode warns again once the subscriber has drained", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 16 })!;
    publishN(bus, 13);
    expect(view(await ready(sub)).filter((v) => v === "slow_client_warning")).toHaveLength(1);
    publishN(bus, 13);
    const second = await ready(sub);
    expect(view(second)).toEqual([14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, "slow_client_warning"]);
    expect(second[13]!.envelope.data).toMatchObject({ lastEventId: 26 });
    expect(bus.publish("after", {})!.id).toBe(27);
  });

  test("a subscriber over the live byte cap is evicted with queue_bytes_overflow", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 2048 })!;
    publishN(bus, 25, 100 * 1024); // the head, then 20 charged frames (and the warning) fit in 2 MiB; the 22nd overflows
    const frames = await readToEnd(sub);
    expect(view(frames)).toEqual([...Array.from({ length: 17 }, (_, i) => i + 1), "slow_client_warning", 18, 19, 20, 21, "client_evicted"]);
    expect(frames.at(-1)!.envelope.data).toMatchObject({ reason: "queue_bytes_overflow", droppedAfter: 21, queueSize: 21, maxQueuedBytes: 2 * 1024 * 1024 });
  });

  test("the byte warning names its threshold", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 2048 })!;
    publishN(bus, 17, 100 * 1024);
    const batch = await ready(sub);
    const warning = batch.find((f) => f.type === "slow_client_warning");
    expect(warning?.envelope.data).toMatchObject({ threshold: "bytes", maxQueued: 2048 });
  });
});

describe("subscribers that keep up", () => {
  test("a synchronous burst far past maxQueued reaches a subscriber whose writer waits for it", async () => {
    const bus = newBus({ ringSize: 8000 });
    const sub = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 16 })!;
    const waiting = sub.next(); // the writer has drained its socket and asks for more
    publishN(bus, 1000); // e.g. a prompt's echo, one frame per block, in one loop
    const got: Frame[] = [...(await waiting)!];
    while (got.length < 1000) got.push(...(await ready(sub)));
    expect(view(got)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(sub.ended).toBe(false);
    expect(bus.subscriberCount).toBe(1);
  });

  test("frames that arrive while the writer is busy after a burst are charged again", async () => {
    const bus = newBus({ ringSize: 8000 });
    const sub = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 16 })!;
    const waiting = sub.next(1);
    publishN(bus, 300);
    expect(view((await waiting)!)).toEqual([1]); // the writer took one frame and is writing it
    publishN(bus, 17); // behind 299 owed frames: 12 charged ones raise the warning, which takes a slot; the 16th overflows
    const frames = await readToEnd(sub);
    expect(view(frames)).toEqual([...Array.from({ length: 311 }, (_, i) => i + 2), "slow_client_warning", 313, 314, 315, "client_evicted"]);
    expect(frames.at(-1)!.envelope.data).toMatchObject({ reason: "queue_overflow", droppedAfter: 315, queueSize: 16 });
  });

  test("a burst holding a frame larger than the byte cap reaches a subscriber whose writer waits", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    const waiting = sub.next();
    bus.publish("session_update", { text: "caption" });
    bus.publish("session_update", { image: "x".repeat(MAX_QUEUED_BYTES + 300_000) }); // a prompt's image, right behind its caption
    expect(view((await waiting)!)).toEqual([1, 2]);
    expect(sub.ended).toBe(false);
  });

  test("a frame larger than the byte cap is queued alone behind a busy writer; a stalled one is evicted by the next", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("session_update", { n: 1 });
    expect(view(await ready(sub))).toEqual([1]); // the writer is now busy writing it
    const large = () => bus.publish("session_update", { diff: "y".repeat(MAX_QUEUED_BYTES + 300_000) })!;
    large();
    const batch = await ready(sub);
    expect(view(batch)).toEqual([2]);
    expect(batch[0]!.bytes).toBeGreaterThan(MAX_QUEUED_BYTES);
    // The writer stalls on that frame; the next large one is the head, the one after it overflows.
    large();
    const fourth = large();
    const frames = await readToEnd(sub);
    expect(view(frames)).toEqual([3, "client_evicted"]);
    expect(frames[1]!.envelope.data).toEqual({
      reason: "queue_bytes_overflow",
      droppedAfter: 3,
      queueSize: 0,
      maxQueued: DEFAULT_MAX_QUEUED,
      queuedBytes: 0,
      maxQueuedBytes: MAX_QUEUED_BYTES,
      eventBytes: fourth.bytes,
    });
  });

  test("batches stop at maxBytes but always hold at least one frame", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    publishN(bus, 3, 1000); // ~1.1 KB each: two fit in 2500 bytes
    publishN(bus, 1, 5000); // larger than a batch: alone
    publishN(bus, 2, 10);
    expect(view((await sub.next(2500))!)).toEqual([1, 2]);
    expect(view((await sub.next(2500))!)).toEqual([3]);
    expect(view((await sub.next(2500))!)).toEqual([4]);
    expect(view((await sub.next(2500))!)).toEqual([5, 6]);
  });
});

describe("replay is read lazily from the ring", () => {
  test("frames the ring drops before a slow reader reaches them are reported as ring_evicted, then the replay goes on", async () => {
    const bus = newBus({ ringSize: 4 });
    publishN(bus, 4, 1000);
    const sub = bus.subscribe({ lastEventId: 0, epoch: EPOCH })!;
    expect(view((await sub.next(1500))!)).toEqual([1]); // frame 2 is taken from the cursor, but did not fit
    publishN(bus, 3, 1000); // the ring now holds 4..7
    const rest: Frame[] = [];
    while (rest.length < 7) rest.push(...(await ready(sub)));
    expect(view(rest)).toEqual([2, "state_resync_required", 4, "replay_complete", 5, 6, 7]);
    expect(rest[1]!.envelope.data).toEqual({ reason: "ring_evicted", lastDeliveredId: 2, earliestAvailableId: 4 });
    expect(rest[3]!.envelope.data).toEqual({ replayedCount: 3, lastReplayedEventId: 4, lastEventId: 4 });
  });

  test("the ring keeps at most RING_MAX_BYTES of frames: older ones are gone even within --event-ring-size", async () => {
    const bus = newBus({ ringSize: 100 });
    const frameBytes = Math.ceil(RING_MAX_BYTES / 3.5);
    publishN(bus, 5, frameBytes); // 5 frames of over a quarter of the bound each: the last 3 fit
    const batch = await ready(bus.subscribe({ lastEventId: 1, epoch: EPOCH })!);
    expect(view(batch)[0]).toBe("state_resync_required");
    expect(batch[0]!.envelope.data).toEqual({ reason: "ring_evicted", lastDeliveredId: 1, earliestAvailableId: 3 });
  });

  test("a replay costs no live queue: a replay far larger than the byte cap is delivered whole", async () => {
    const bus = newBus({ ringSize: 1000 });
    publishN(bus, 60, 100 * 1024); // ~6 MiB, three times the live byte cap
    const sub = bus.subscribe({ lastEventId: 0, epoch: EPOCH })!;
    const got: Frame[] = [];
    while (got.at(-1)?.type !== "replay_complete") got.push(...(await ready(sub)));
    expect(view(got)).toEqual([...Array.from({ length: 60 }, (_, i) => i + 1), "replay_complete"]);
  });

  test("synthetic replay frames are stamped when they are written", async () => {
    let now = 1;
    const bus = new EventBus({ ringSize: 10, maxSubscribers: 2, now: () => now, epoch: EPOCH });
    publishN(bus, 2);
    const sub = bus.subscribe({ lastEventId: 0, epoch: null })!;
    now = 99;
    const batch = await ready(sub);
    expect(batch.at(-1)!.envelope).toMatchObject({ type: "replay_complete", _meta: { serverTimestamp: 99 } });
  });
});

describe("unencodable data", () => {
  const deep = () => {
    let value: unknown = "leaf";
    for (let i = 0; i < 200_000; i++) value = [value];
    return value;
  };
  const cyclic = () => {
    const value: Record<string, unknown> = {};
    value.self = value;
    return value;
  };

  test.each([
    ["nesting deeper than the serializer can go", deep, "too_deep"],
    ["a BigInt", () => ({ n: 10n }), "not_json"],
    ["a cycle", cyclic, "not_json"],
    ["a throwing toJSON", () => ({ toJSON: () => { throw new Error("no"); } }), "not_json"],
  ] as const)("%s is refused with EventEncodeError, and the bus goes on as if nothing was published", async (_, make, reason) => {
    const bus = newBus();
    const live = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("a", {});
    let error: unknown;
    try {
      bus.publish("session_update", make());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EventEncodeError);
    expect(error).toBeInstanceOf(DaemonError);
    expect((error as EventEncodeError).body()).toEqual({ error: expect.any(String), code: "event_not_encodable", eventType: "session_update", reason });
    expect(bus.lastId).toBe(1);
    expect(bus.publish("b", {})!.id).toBe(2);
    expect(view(await ready(live))).toEqual([1, 2]);
    expect(view(await ready(bus.subscribe({ lastEventId: 0, epoch: EPOCH })!))).toEqual([1, 2, "replay_complete"]);
  });
});

describe("publish, close and cancel", () => {
  test("publish never throws: not for evicted, cancelled or ended subscribers, nor after close", () => {
    const bus = newBus();
    const evicted = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 16 })!;
    const cancelled = bus.subscribe({ lastEventId: null, epoch: null })!;
    cancelled.cancel();
    expect(() => publishN(bus, 40)).not.toThrow();
    expect(evicted.ended).toBe(true);
    bus.close();
    expect(() => bus.publish("late", {})).not.toThrow();
    expect(bus.publish("late", {})).toBeNull();
    expect(bus.lastId).toBe(40);
  });

  test("a waiting subscriber is woken by the next publish", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    const waiting = sub.next();
    bus.publish("a", {});
    expect(view((await waiting)!)).toEqual([1]);
  });

  test("closing the bus ends subscriptions after they deliver what they hold", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    publishN(bus, 3);
    bus.close();
    expect(bus.closed).toBe(true);
    expect(sub.ended).toBe(true);
    expect(view(await readToEnd(sub))).toEqual([1, 2, 3]);
    expect(bus.subscriberCount).toBe(0);
  });

  test("closing the bus wakes a waiting subscriber with the end", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    const waiting = sub.next();
    bus.close();
    expect(await waiting).toBeNull();
  });

  test("a subscriber arriving after close gets its replay, then the end", async () => {
    const bus = newBus();
    publishN(bus, 2);
    bus.close();
    const sub = bus.subscribe({ lastEventId: 0, epoch: null })!;
    expect(view(await readToEnd(sub))).toEqual([1, 2, "replay_complete"]);
  });

  test("cancel drops what is queued and ends the subscription", async () => {
    const bus = newBus();
    const sub = bus.subscribe({ lastEventId: 0, epoch: null })!;
    publishN(bus, 3);
    sub.cancel();
    sub.cancel();
    expect(await sub.next()).toBeNull();
    expect(bus.subscriberCount).toBe(0);
    expect(bus.publish("after", {})!.id).toBe(4);
  });

  test("refuses subscribers past the cap until one leaves", () => {
    const bus = newBus({ maxSubscribers: 2 });
    const a = bus.subscribe({ lastEventId: null, epoch: null })!;
    expect(bus.subscribe({ lastEventId: null, epoch: null })).not.toBeNull();
    expect(bus.subscribe({ lastEventId: null, epoch: null })).toBeNull();
    a.cancel();
    expect(bus.subscribe({ lastEventId: null, epoch: null })).not.toBeNull();
  });
});
