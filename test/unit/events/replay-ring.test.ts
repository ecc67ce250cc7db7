/** The bounded replay ring: contiguous ids, oldest overwritten on overflow. */
import { describe, expect, test } from "bun:test";
import { encodeFrame } from "../../../src/events/frame.ts";
import { ReplayRing } from "../../../src/events/replay-ring.ts";

const frame = (id: number) => encodeFrame(id, "session_update", { n: id });
const ids = (ring: ReplayRing, after = 0) => [...ring.after(after)].map((f) => f.id);

describe("ReplayRing", () => {
  test("is empty at first", () => {
    const ring = new ReplayRing(3);
    expect(ring.size).toBe(0);
    expect(ring.oldestId).toBeNull();
    expect(ids(ring)).toEqual([]);
  });

  test("keeps the newest `capacity` frames, oldest first", () => {
    const ring = new ReplayRing(3);
    for (let id = 1; id <= 5; id++) ring.push(frame(id));
    expect(ring.size).toBe(3);
    expect(ring.oldestId).toBe(3);
    expect(ids(ring)).toEqual([3, 4, 5]);
    expect(ids(ring, 3)).toEqual([4, 5]);
    expect(ids(ring, 5)).toEqual([]);
    expect(ids(ring, 99)).toEqual([]);
  });

  test("holds everything while under capacity", () => {
    const ring = new ReplayRing(8);
    for (let id = 1; id <= 4; id++) ring.push(frame(id));
    expect(ring.oldestId).toBe(1);
    expect(ids(ring, 2)).toEqual([3, 4]);
  });

  test("refuses an id that is not the next one", () => {
    const ring = new ReplayRing(3);
    ring.push(frame(1));
    expect(() => ring.push(frame(3))).toThrow();
    expect(() => ring.push(frame(1))).toThrow();
    expect(ids(ring)).toEqual([1]);
  });

  test("refuses a capacity below one", () => {
    expect(() => new ReplayRing(0)).toThrow(RangeError);
    expect(() => new ReplayRing(1.5)).toThrow(RangeError);
  });

  test("stays exact across many wrap-arounds, for every starting point", () => {
    const ring = new ReplayRing(5);
    for (let id = 1; id <= 23; id++) {
      ring.push(frame(id));
      const oldest = Math.max(1, id - 4);
      expect(ring.oldestId).toBe(oldest);
      for (let after = 0; after <= id; after++) {
        const expected: number[] = [];
        for (let n = Math.max(after + 1, oldest); n <= id; n++) expected.push(n);
        expect(ids(ring, after)).toEqual(expected);
      }
    }
    expect([...ring.after(0)].map((f) => (f.envelope.data as { n: number }).n)).toEqual([19, 20, 21, 22, 23]);
  });

  test("a ring of one keeps only the newest frame", () => {
    const ring = new ReplayRing(1);
    ring.push(frame(1));
    ring.push(frame(2));
    expect(ids(ring)).toEqual([2]);
    expect(ring.oldestId).toBe(2);
  });
});
