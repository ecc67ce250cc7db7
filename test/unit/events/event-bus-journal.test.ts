import { describe, expect, test } from "bun:test";
import { EventBus, type EventJournal } from "../../../src/events/event-bus.ts";
import type { Frame } from "../../../src/events/frame.ts";

/** A journal that holds every frame until the test commits it (`commit`) or gives up on it (`fail`). */
function heldJournal() {
  const pending: { frame: Frame; done: (recorded: boolean) => void }[] = [];
  /** Notices the bus recorded (`recordNotice`), as frames. */
  const notices: Frame[] = [];
  const journal: EventJournal = {
    record: (_epoch, frame, done) => void pending.push({ frame, done }),
    stopNotice: (firstUnrecordedId, unrecorded) => ({ type: "stopped", data: { firstUnrecordedId, unrecorded } }),
    recordNotice: (_epoch, notice) => void notices.push(notice),
  };
  return {
    journal,
    pending,
    notices,
    commit(n = pending.length) {
      for (const { done } of pending.splice(0, n)) done(true);
    },
    fail(n = pending.length) {
      for (const { done } of pending.splice(0, n)) done(false);
    },
  };
}

const ids = (frames: Frame[] | null) => (frames ?? []).map((f) => f.id ?? f.type);
/** What a client reads: each frame's id, type and the id inside its envelope. */
const seen = (frames: Frame[] | null) => (frames ?? []).map((f) => [f.id, f.type, f.envelope.id]);

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

  test("a journal that releases at once (recording works, synchronously) delivers synchronously", async () => {
    const journal: EventJournal = { record: (_epoch, _frame, done) => done(true), stopNotice: () => ({ type: "stopped", data: {} }), recordNotice: () => {} };
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("a", {});
    expect(bus.lastId).toBe(1);
    expect(ids(await sub.next())).toEqual([1]);
  });
});

describe("event bus when recording gives up on a frame", () => {
  test("the frame goes out behind a stop notice that takes its id; every held frame moves up one id, envelope included", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("a", {});
    held.commit();
    bus.publish("b", { n: 1 }, { promptId: "p1" });
    bus.publish("c", {});
    bus.publish("d", {});
    held.fail(1);
    // The notice (id 2) comes before b, the first frame the journal lacks (now id 3), and counts the three published unrecorded.
    expect(held.notices.map((n) => [n.id, n.type])).toEqual([[2, "stopped"]]);
    expect(held.notices[0]!.envelope.data).toEqual({ firstUnrecordedId: 3, unrecorded: 3 });
    expect(seen(await sub.next())).toEqual([
      [1, "a", 1],
      [2, "stopped", 2],
      [3, "b", 3],
    ]);
    // A moved frame keeps its data, fields and timestamp.
    const b = bus.subscribe({ lastEventId: 2, epoch: bus.epoch })!;
    const replayed = (await b.next())![0]!;
    expect(replayed.envelope).toMatchObject({ id: 3, type: "b", data: { n: 1 }, promptId: "p1" });
    // The rest of the stop goes out without another notice; the next publish takes the next id.
    held.fail();
    expect(held.notices.length).toBe(1);
    bus.publish("e", {});
    expect(held.pending.map((p) => p.frame.id)).toEqual([6]);
    held.fail();
    expect(seen(await sub.next())).toEqual([
      [4, "c", 4],
      [5, "d", 5],
      [6, "e", 6],
    ]);
    // A client replaying from the start meets the notice before every frame the journal lacks.
    const replay = bus.subscribe({ lastEventId: 0, epoch: bus.epoch })!;
    expect(ids(await replay.next())).toEqual([1, 2, 3, 4, 5, 6, "replay_complete"]);
  });

  test("a recorded frame ends the stop: the next frame recording gives up on is told anew", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    bus.publish("a", {});
    held.fail();
    bus.publish("b", {});
    held.commit();
    bus.publish("c", {});
    held.fail();
    expect(held.notices.map((n) => n.id)).toEqual([1, 4]);
    expect(held.notices[1]!.envelope.data).toEqual({ firstUnrecordedId: 5, unrecorded: 1 });
    expect(bus.lastId).toBe(5);
  });

  test("the daemon telling a bus with nothing held: the notice goes out at once, and once per stop", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("a", {});
    held.commit();
    bus.recordingStopped();
    bus.recordingStopped();
    expect(held.notices.map((n) => n.id)).toEqual([2]);
    expect(held.notices[0]!.envelope.data).toEqual({ firstUnrecordedId: 3, unrecorded: 0 });
    bus.publish("b", {});
    held.fail();
    expect(ids(await sub.next())).toEqual([1, 2, 3]);
    expect(bus.recordingResumed()).toEqual({ noticeId: 2, firstUnrecordedId: 3, unrecorded: 1 });
    expect(bus.recordingResumed()).toBeNull();
  });

  test("the daemon telling a bus that holds frames waits for the first unrecorded one; told again, it goes ahead of them", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    bus.publish("a", {});
    bus.recordingStopped();
    // a may yet be recorded: no notice now, and none when it is.
    expect(held.notices).toEqual([]);
    held.commit();
    expect(held.notices).toEqual([]);
    bus.publish("b", {});
    bus.recordingStopped(true);
    expect(held.notices.map((n) => [n.id, n.envelope.data])).toEqual([[2, { firstUnrecordedId: 3, unrecorded: 1 }]]);
    expect(held.pending[0]!.frame.id).toBe(2);
    held.fail();
    // b went out as 3, behind the notice; no second notice for it.
    expect(held.notices.length).toBe(1);
    expect(bus.lastId).toBe(3);
  });

  test("a closed bus still puts the notice ahead of the frames it owes", async () => {
    const held = heldJournal();
    const bus = new EventBus({ ringSize: 100, maxSubscribers: 10, journal: held.journal });
    const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
    bus.publish("session_closed", {});
    bus.close();
    held.fail();
    expect(ids(await sub.next())).toEqual([1, 2]);
    expect(await sub.next()).toBeNull();
  });
});
