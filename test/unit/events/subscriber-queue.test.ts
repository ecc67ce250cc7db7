/** One subscriber's bounded live queue: warn once at 75% per episode, re-arm on drain, overflow at the caps. */
import { describe, expect, test } from "bun:test";
import { encodeFrame, type Frame } from "../../../src/events/frame.ts";
import { SubscriberQueue } from "../../../src/events/subscriber-queue.ts";

let nextId = 1;
const frame = (padBytes = 0): Frame => encodeFrame(nextId++, "session_update", { pad: "x".repeat(padBytes) });

describe("SubscriberQueue", () => {
  test("warns once when the frame count reaches 75%, then queues quietly until full", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    const kinds = Array.from({ length: 16 }, () => queue.offer(frame()).kind);
    expect(kinds.indexOf("warn")).toBe(11); // the 12th frame is 75% of 16
    expect(kinds.filter((k) => k === "warn")).toHaveLength(1);
    expect(queue.offer(frame())).toEqual({ kind: "overflow", reason: "queue_overflow" });
    expect(queue.size).toBe(16);
  });

  test("names the byte threshold when bytes cross 75% first", () => {
    const probe = frame(1000);
    const queue = new SubscriberQueue(1000, probe.bytes * 4);
    expect(queue.offer(probe).kind).toBe("queued");
    expect(queue.offer(frame(1000)).kind).toBe("queued");
    expect(queue.offer(frame(1000))).toEqual({ kind: "warn", threshold: "bytes" });
    expect(queue.offer(frame(1000)).kind).toBe("queued");
    expect(queue.offer(frame(1000))).toEqual({ kind: "overflow", reason: "queue_bytes_overflow" });
  });

  test("names both thresholds when they are crossed together", () => {
    const probe = frame(100);
    const queue = new SubscriberQueue(4, probe.bytes * 4);
    queue.offer(probe);
    queue.offer(frame(100));
    expect(queue.offer(frame(100))).toEqual({ kind: "warn", threshold: "frames_and_bytes" });
  });

  test("a single frame larger than the byte cap overflows at once", () => {
    const queue = new SubscriberQueue(16, 100);
    expect(queue.offer(frame(200))).toEqual({ kind: "overflow", reason: "queue_bytes_overflow" });
    expect(queue.size).toBe(0);
  });

  test("draining empties the queue and re-arms the warning for the next episode", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    for (let i = 0; i < 12; i++) queue.offer(frame());
    const drained = queue.drain();
    expect(drained).toHaveLength(12);
    expect(drained.map((f) => f.id)).toEqual([...drained.map((f) => f.id)].sort((a, b) => a! - b!));
    expect(queue.size).toBe(0);
    expect(queue.bytes).toBe(0);
    const kinds = Array.from({ length: 12 }, () => queue.offer(frame()).kind);
    expect(kinds.filter((k) => k === "warn")).toHaveLength(1);
  });

  test("tracks queued bytes", () => {
    const queue = new SubscriberQueue(16, 1 << 30);
    const a = frame(10);
    const b = frame(20);
    queue.offer(a);
    queue.offer(b);
    expect(queue.bytes).toBe(a.bytes + b.bytes);
  });
});
