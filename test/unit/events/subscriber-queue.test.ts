/**
 * One subscriber's bounded live queue: frames offered while the writer waits and the head are owed
 * (never refused); the rest is charged against `maxQueued` and the byte cap, with one warning per
 * episode at 75% and an overflow at the cap.
 */
import { describe, expect, test } from "bun:test";
import { encodeFrame, type Frame } from "../../../src/events/frame.ts";
import { SubscriberQueue } from "../../../src/events/subscriber-queue.ts";

let nextId = 1;
const frame = (padBytes = 0): Frame => encodeFrame(nextId++, "session_update", { pad: "x".repeat(padBytes) });
const busy = (queue: SubscriberQueue, f: Frame) => queue.offer(f, false);

describe("charged frames (behind a busy writer)", () => {
  test("the head is owed; warns once when 75% of maxQueued is charged, then overflows past the cap", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    const kinds = Array.from({ length: 17 }, () => busy(queue, frame()).kind);
    expect(kinds.indexOf("warn")).toBe(12); // the 13th frame is the 12th charged one: 75% of 16
    expect(kinds.filter((k) => k === "warn")).toHaveLength(1);
    expect(queue.chargedFrames).toBe(16);
    expect(busy(queue, frame())).toEqual({ kind: "overflow", reason: "queue_overflow" });
    expect(queue.size).toBe(17);
  });

  test("names the byte threshold when bytes cross 75% first", () => {
    const probe = frame(1000);
    const queue = new SubscriberQueue(1000, probe.bytes * 4);
    expect(busy(queue, probe).kind).toBe("queued"); // the head
    expect(busy(queue, frame(1000)).kind).toBe("queued");
    expect(busy(queue, frame(1000)).kind).toBe("queued");
    expect(busy(queue, frame(1000))).toEqual({ kind: "warn", threshold: "bytes" });
    expect(busy(queue, frame(1000)).kind).toBe("queued");
    expect(queue.chargedBytes).toBe(probe.bytes * 4);
    expect(busy(queue, frame(1000))).toEqual({ kind: "overflow", reason: "queue_bytes_overflow" });
  });

  test("names both thresholds when they are crossed together", () => {
    const probe = frame(100);
    const queue = new SubscriberQueue(4, probe.bytes * 4);
    busy(queue, probe);
    busy(queue, frame(100));
    busy(queue, frame(100));
    expect(busy(queue, frame(100))).toEqual({ kind: "warn", threshold: "frames_and_bytes" });
  });

  test("a frame larger than the byte cap is queued at the head, and overflows behind it", () => {
    const queue = new SubscriberQueue(16, 100);
    expect(busy(queue, frame(200)).kind).toBe("queued");
    expect(queue.chargedBytes).toBe(0);
    expect(busy(queue, frame(200))).toEqual({ kind: "overflow", reason: "queue_bytes_overflow" });
    expect(queue.size).toBe(1);
  });
});

describe("owed frames (offered while the writer waits)", () => {
  test("a burst of any length and size is never refused and charges nothing", () => {
    const queue = new SubscriberQueue(16, 1000);
    for (let i = 0; i < 500; i++) expect(queue.offer(frame(100), true)).toEqual({ kind: "queued" });
    expect(queue.size).toBe(500);
    expect(queue.chargedFrames).toBe(0);
    expect(queue.chargedBytes).toBe(0);
  });

  test("frames offered once the writer is busy again are charged behind the owed prefix", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    for (let i = 0; i < 100; i++) queue.offer(frame(), true);
    const kinds = Array.from({ length: 17 }, () => busy(queue, frame()).kind);
    expect(kinds.slice(0, 16)).toContain("warn");
    expect(kinds[16]).toBe("overflow");
    expect(queue.chargedFrames).toBe(16);
  });

  test("an owed offer behind charged frames is charged (the owed frames stay a prefix)", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    busy(queue, frame());
    busy(queue, frame());
    queue.offer(frame(), true);
    expect(queue.chargedFrames).toBe(2);
  });
});

describe("taking", () => {
  test("shift hands out frames oldest first, moving the owed head and then the charged ones", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    const owed = [frame(), frame()];
    for (const f of owed) queue.offer(f, true);
    const charged = [frame(), frame(), frame()];
    for (const f of charged) busy(queue, f);
    expect(queue.chargedFrames).toBe(3);
    expect(queue.peek()).toBe(owed[0]!);
    expect(queue.shift()).toBe(owed[0]!);
    expect(queue.shift()).toBe(owed[1]!);
    // The first charged frame is now the head, so it is owed.
    expect(queue.chargedFrames).toBe(2);
    expect(queue.chargedBytes).toBe(charged[1]!.bytes + charged[2]!.bytes);
    expect([queue.shift(), queue.shift(), queue.shift(), queue.shift()]).toEqual([charged[0]!, charged[1]!, charged[2]!, undefined]);
    expect(queue.size).toBe(0);
  });

  test("the warning re-arms once charged frames and bytes are both below 37.5%", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    for (let i = 0; i < 13; i++) busy(queue, frame()); // head + 12 charged: warned
    for (let i = 0; i < 6; i++) queue.shift(); // 6 charged left: 37.5% of 16, still in the episode
    expect(queue.chargedFrames).toBe(6);
    for (let i = 0; i < 6; i++) expect(busy(queue, frame()).kind).toBe("queued");
    for (let i = 0; i < 7; i++) queue.shift(); // 5 charged left: below 37.5%, re-armed
    expect(queue.chargedFrames).toBe(5);
    const kinds = Array.from({ length: 7 }, () => busy(queue, frame()).kind);
    expect(kinds).toEqual(["queued", "queued", "queued", "queued", "queued", "queued", "warn"]);
  });

  test("stays exact across compactions of a long queue", () => {
    const queue = new SubscriberQueue(2048, 1 << 30);
    const all = Array.from({ length: 5000 }, () => frame());
    for (const f of all) queue.offer(f, true);
    const out: Frame[] = [];
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
      out.push(f);
      if (out.length === 3000) for (let i = 0; i < 10; i++) busy(queue, frame());
    }
    expect(out.slice(0, 5000)).toEqual(all);
    expect(out).toHaveLength(5010);
  });

  test("clear drops everything and starts a new episode", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    for (let i = 0; i < 14; i++) busy(queue, frame());
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.chargedBytes).toBe(0);
    expect(Array.from({ length: 13 }, () => busy(queue, frame()).kind).at(-1)).toBe("warn");
  });
});
