import { describe, expect, test } from "bun:test";
import { EventBus, type EventJournal } from "../../../src/events/event-bus.ts";
import type { Frame } from "../../../src/events/frame.ts";

/** A journal that holds every frame until the test makes it durable. */
function heldJournal() {
  const pending: { frame: Frame; durable: () => void }[] = [];
  const journal: EventJournal = { record: (_epoch, frame, durable) => void pending.push({ frame, durable }) };
  return {
    journal,
    pending,
    commit(n = pending.length) {
      for (const { durable } of pending.splice(0, n)) durable();
    },
  };
}

const ids = (frames: Frame[] | null) => (frames ?? []).map((f) => f.id ?? f.type);

describe("event bus with a journal", () => {
  test("a frame reaches subscribers and the ring only once it is durable, in publish order", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("a", {});
    bus.publish("b", {});
    bus.publish("c", {});
    expect(bus.lastId).toBe(0);
    expect(held.pending.map((p) => p.frame.id)).toEqual([1, 2, 3]);
    const late = bus.subscribe({ lastEventId: 0, epoch: null })!;
    held.commit(2);
    expect(bus.lastId).toBe(2);
    expect(ids(await sub.next())).toEqual([1, 2]);
    held.commit();
    expect(ids(await sub.next())).toEqual([3]);
    // A subscriber that came while nothing was durable replays nothing held and gets it all live.
    expect(ids(await late.next())).toEqual(["replay_complete", 1, 2, 3]);
    // Reconnecting replays from the ring: everything durable.
    const again = bus.subscribe({ lastEventId: 0, epoch: null })!;
    expect(ids(await again.next())).toEqual([1, 2, 3, "replay_complete"]);
  });

  test("closing waits for held frames: the terminal event still goes out, then the stream ends", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("session_closed", {});
    bus.close();
    expect(sub.ended).toBe(false);
    const late = bus.subscribe({ lastEventId: null, epoch: null })!;
    held.commit();
    expect(ids(await sub.next())).toEqual([1]);
    expect(await sub.next()).toBeNull();
    expect(ids(await late.next())).toEqual([1]);
    expect(await late.next()).toBeNull();
    expect(bus.publish("after", {})).toBeNull();
  });

  test("a journal that releases at once (recording off) delivers synchronously", async () => {
    const journal: EventJournal = { record: (_epoch, _frame, durable) => durable() };
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("a", {});
    expect(bus.lastId).toBe(1);
    expect(ids(await sub.next())).toEqual([1]);
  });
});
