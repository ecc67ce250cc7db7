/** The bounded replay ring: contiguous ids, oldest dropped past the frame count or the byte bound. */
import { describe, expect, test } from "bun:test";
import { encodeFrame } from "../../../src/events/frame.ts";
import { ReplayRing } from "../../../src/events/replay-ring.ts";

const frame = (id: number, pad = 0) => encodeFrame(id, "session_update", { n: id, pad: "x".repeat(pad) });
/** Ids of the frames held, oldest first, read back through `at`. */
const ids = (ring: ReplayRing) => {
  const out: number[] = [];
  for (let id = ring.oldestId ?? 1; ring.at(id) !== undefined; id++) out.push(ring.at(id)!.id!);
  return out;
};
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

describe("ReplayRing", () => {
  test("is empty at first", () => {
    const ring = new ReplayRing(3, UNBOUNDED);
    expect(ring.size).toBe(0);
    expect(ring.bytes).toBe(0);
    expect(ring.oldestId).toBeNull();
    expect(ring.at(1)).toBeUndefined();
    expect(ids(ring)).toEqual([]);
  });

  test("keeps the newest `capacity` frames, oldest first", () => {
    const ring = new ReplayRing(3, UNBOUNDED);
    for (let id = 1; id <= 5; id++) ring.push(frame(id));
    expect(ring.size).toBe(3);
    expect(ring.oldestId).toBe(3);
    expect(ids(ring)).toEqual([3, 4, 5]);
    expect(ring.at(2)).toBeUndefined();
    expect(ring.at(6)).toBeUndefined();
  });

  test("holds everything while under capacity", () => {
    const ring = new ReplayRing(8, UNBOUNDED);
    for (let id = 1; id <= 4; id++) ring.push(frame(id));
    expect(ring.oldestId).toBe(1);
    expect(ids(ring)).toEqual([1, 2, 3, 4]);
  });

  test("refuses an id that is not the next one", () => {
    const ring = new ReplayRing(3, UNBOUNDED);
    ring.push(frame(1));
    expect(() => ring.push(frame(3))).toThrow();
    expect(() => ring.push(frame(1))).toThrow();
    expect(ids(ring)).toEqual([1]);
  });

  test("refuses a capacity below one and a byte bound below one byte", () => {
    expect(() => new ReplayRing(0, UNBOUNDED)).toThrow(RangeError);
    expect(() => new ReplayRing(1.5, UNBOUNDED)).toThrow(RangeError);
    expect(() => new ReplayRing(3, 0)).toThrow(RangeError);
  });

  test("stays exact across many wrap-arounds and growths, for every id", () => {
    const ring = new ReplayRing(37, UNBOUNDED);
    for (let id = 1; id <= 200; id++) {
      ring.push(frame(id));
      const oldest = Math.max(1, id - 36);
      expect(ring.oldestId).toBe(oldest);
      expect(ids(ring)).toEqual(Array.from({ length: id - oldest + 1 }, (_, i) => oldest + i));
    }
    expect((ring.at(200)!.envelope.data as { n: number }).n).toBe(200);
  });

  test("a ring of one keeps only the newest frame", () => {
    const ring = new ReplayRing(1, UNBOUNDED);
    ring.push(frame(1));
    ring.push(frame(2));
    expect(ids(ring)).toEqual([2]);
    expect(ring.oldestId).toBe(2);
  });

  test("drops the oldest frames past the byte bound, and counts what it holds", () => {
    const size = frame(1, 1000).bytes;
    const ring = new ReplayRing(100, size * 3);
    for (let id = 1; id <= 3; id++) ring.push(frame(id, 1000));
    expect(ids(ring)).toEqual([1, 2, 3]);
    expect(ring.bytes).toBe(size * 3);
    ring.push(frame(4, 1000));
    expect(ids(ring)).toEqual([2, 3, 4]);
    expect(ring.bytes).toBe(size * 3);
    // One large frame pushes out as many as it needs to.
    ring.push(frame(5, 2 * size));
    expect(ids(ring)).toEqual([5]);
    expect(ring.bytes).toBe(ring.at(5)!.bytes);
  });

  test("always keeps the newest frame, even one larger than the byte bound", () => {
    const ring = new ReplayRing(100, 50);
    ring.push(frame(1, 500));
    expect(ids(ring)).toEqual([1]);
    ring.push(frame(2, 500));
    expect(ids(ring)).toEqual([2]);
    ring.push(frame(3));
    expect(ids(ring)).toEqual([3]);
  });
});
