/**
 * The SSE writer against a sink that behaves like a socket: it takes writes while its client reads,
 * and holds a write back (a pending promise) once the client stops. A writer that keeps up writes
 * each frame in the publishing task and flushes once per task; a held-back write stops the writer,
 * so frames wait in the bounded subscriber queue (warned, then evicted) and the sink never holds
 * more than one chunk; the writer idle timeout evicts a client that takes nothing.
 */
import { describe, expect, test } from "bun:test";
import { EventBus } from "../../../src/events/event-bus.ts";
import { SseWriter, WRITE_CHUNK_BYTES, type SseSink } from "../../../src/server/sse-writer.ts";
import { until } from "../../helpers/until.ts";

const decoder = new TextDecoder();

class SocketSink implements SseSink {
  readonly writes: Uint8Array[] = [];
  flushes = 0;
  closed = false;
  /** Whether the client reads: while it does not, each write is held back until `take`. */
  reading = true;
  private held: (() => void)[] = [];

  write(bytes: Uint8Array): number | Promise<number> {
    this.writes.push(bytes.slice());
    if (this.reading) return bytes.byteLength;
    return new Promise((resolve) => this.held.push(() => resolve(bytes.byteLength)));
  }
  flush(): void {
    this.flushes++;
  }
  close(): void {
    this.closed = true;
  }
  /** The client takes the oldest held-back write. */
  take(): boolean {
    const next = this.held.shift();
    next?.();
    return next !== undefined;
  }
  get heldBack(): number {
    return this.held.length;
  }
  text(): string {
    return this.writes.map((w) => decoder.decode(w)).join("");
  }
}

function setup(options: { idleMs?: number | null; heartbeatMs?: number; maxQueued?: number; prepare?: (bus: EventBus) => void } = {}) {
  const bus = new EventBus({ ringSize: 1000, maxSubscribers: 4 });
  options.prepare?.(bus);
  const sub = bus.subscribe({ lastEventId: bus.lastId > 0 ? 0 : null, epoch: null, maxQueued: options.maxQueued ?? 16 })!;
  const sink = new SocketSink();
  let closes = 0;
  const writer = new SseWriter(sub, sink, {
    writerIdleTimeoutMs: options.idleMs ?? null,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    idleEviction: (idleForMs, timeoutMs) => bus.synthetic("client_evicted", { reason: "writer_idle_timeout", errorKind: "writer_idle_timeout", idleForMs, timeoutMs }),
    onClose: () => closes++,
  });
  return { bus, sub, sink, writer, closes: () => closes };
}

/** The SSE blocks of a text that carry data: ids for id-carrying frames, the type for the others. */
const view = (text: string) =>
  text
    .split("\n\n")
    .filter((block) => block.includes("\ndata: ") || block.startsWith("data: "))
    .map((block) => {
      const envelope = JSON.parse(block.slice(block.indexOf("data: ") + 6));
      return envelope.id ?? envelope.type;
    });

describe("SseWriter", () => {
  test("a writer that keeps up writes each frame in the publishing task, and flushes once per task", async () => {
    const { bus, sink } = setup();
    await Promise.resolve();
    const flushes = sink.flushes;
    bus.publish("a", {});
    bus.publish("b", {});
    bus.publish("c", {});
    expect(sink.writes.length).toBe(4); // retry + one write per frame, before anything awaited
    expect(sink.flushes).toBe(flushes);
    await Promise.resolve();
    expect(sink.flushes).toBe(flushes + 1);
    expect(sink.text()).toStartWith("retry: 3000\n\n");
    expect(view(sink.text())).toEqual([1, 2, 3]);
  });

  test("a held-back write stops the writer: frames wait in the subscriber queue, which warns and evicts", async () => {
    const { bus, sub, sink, closes } = setup({ maxQueued: 16 });
    bus.publish("a", { pad: "x".repeat(100) });
    sink.reading = false;
    for (let i = 0; i < 40 && !sub.ended; i++) bus.publish("b", { pad: "x".repeat(100) });
    expect(sub.ended).toBe(true);
    // Nothing beyond the first held-back write reached the sink.
    expect(sink.heldBack).toBe(1);
    expect(view(sink.text())).toEqual([1, 2]);
    sink.reading = true;
    sink.take();
    await until(() => closes() === 1, 3000, "the writer to end after the eviction");
    const seen = view(sink.text());
    expect(seen).toContain("slow_client_warning");
    expect(seen.at(-1)).toBe("client_evicted");
    expect(sink.closed).toBe(true);
    expect(bus.subscriberCount).toBe(0);
  });

  test("a replay goes out one write of at most WRITE_CHUNK_BYTES at a time, the next only once the sink took the last", async () => {
    const { sink } = setup({
      prepare: (bus) => {
        for (let i = 0; i < 200; i++) bus.publish("session_update", { n: i, pad: "p".repeat(5000) });
      },
    });
    sink.reading = false;
    let writes = sink.writes.length;
    while (!sink.text().includes("replay_complete")) {
      expect(sink.writes.length).toBe(writes);
      expect(sink.take()).toBe(true);
      await Promise.resolve();
      expect(sink.writes.length).toBe(writes + 1);
      writes++;
    }
    expect(writes).toBeGreaterThan(10);
    for (const write of sink.writes) expect(write.byteLength).toBeLessThanOrEqual(WRITE_CHUNK_BYTES);
    expect(view(sink.text())).toEqual([...Array.from({ length: 200 }, (_, i) => i + 1), "replay_complete"]);
  });

  test("a client that takes nothing is evicted after the writer idle timeout, its started frame finished first", async () => {
    const { bus, sink, closes } = setup({ idleMs: 300 });
    sink.reading = false;
    const frame = bus.publish("session_update", { diff: "d".repeat(3 * WRITE_CHUNK_BYTES) })!;
    expect(sink.writes.length).toBe(2); // retry, then the frame's first chunk, held back
    await until(() => closes() === 1, 3000, "the idle writer to give up");
    expect(sink.text()).toStartWith(`retry: 3000\n\n${frame.text}`);
    expect(view(sink.text())).toEqual([1, "client_evicted"]);
    expect(sink.closed).toBe(true);
    expect(bus.subscriberCount).toBe(0);
  });

  test("a quiet session is not an idle writer, and a heartbeat the client has not taken makes the writer busy", async () => {
    const { bus, sub, sink, closes } = setup({ idleMs: 300, heartbeatMs: 40, maxQueued: 16 });
    await Bun.sleep(500);
    expect(closes()).toBe(0);
    expect(sink.text()).toContain(": heartbeat\n\n");
    sink.reading = false;
    const writes = sink.writes.length;
    await until(() => sink.writes.length > writes, 3000, "a heartbeat the client does not take");
    for (let i = 0; i < 40 && !sub.ended; i++) bus.publish("b", {});
    expect(sub.ended).toBe(true);
    expect(sink.heldBack).toBe(1);
  });

  test("cancel stops the writer and releases the subscription once", () => {
    const { bus, writer, closes } = setup({ idleMs: 300 });
    writer.cancel();
    writer.cancel();
    expect(closes()).toBe(1);
    expect(bus.subscriberCount).toBe(0);
    expect(() => bus.publish("after", {})).not.toThrow();
  });
});
