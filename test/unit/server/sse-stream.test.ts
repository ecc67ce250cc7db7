/**
 * The SSE writer on its own (a bus subscription read through the Response body): `retry:` first,
 * frames in order, the end of the subscription ends the body, every chunk bounded by
 * WRITE_CHUNK_BYTES (replays and large frames included), and the writer idle timeout evicts a
 * client that stops reading.
 */
import { describe, expect, test } from "bun:test";
import { EventBus } from "../../../src/events/event-bus.ts";
import { sseResponse, WRITE_CHUNK_BYTES } from "../../../src/server/sse-stream.ts";
import { until } from "../../helpers/until.ts";

const decoder = new TextDecoder();

function setup(writerIdleTimeoutMs: number | null, heartbeatMs?: number, prepare: (bus: EventBus) => void = () => {}) {
  const bus = new EventBus({ ringSize: 1000, maxSubscribers: 4 });
  prepare(bus);
  const sub = bus.subscribe({ lastEventId: bus.lastId > 0 ? 0 : null, epoch: null })!;
  let closes = 0;
  const response = sseResponse(sub, {
    epoch: bus.epoch,
    writerIdleTimeoutMs,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    idleEviction: (idleForMs, timeoutMs) => bus.synthetic("client_evicted", { reason: "writer_idle_timeout", errorKind: "writer_idle_timeout", idleForMs, timeoutMs }),
    onClose: () => closes++,
  });
  return { bus, response, reader: response.body!.getReader(), closes: () => closes };
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  return (await readChunks(reader)).map((c) => decoder.decode(c)).join("");
}

async function readChunks(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(chunk.value);
  return chunks;
}

/** The `data:` envelopes of an SSE text, in order. */
const envelopes = (text: string) =>
  text
    .split("\n\n")
    .filter((block) => block.includes("\ndata: "))
    .map((block) => JSON.parse(block.slice(block.indexOf("\ndata: ") + 7)));

describe("sseResponse", () => {
  test("writes `retry: 3000` first, then each published frame, and ends with the subscription", async () => {
    const { bus, response, reader, closes } = setup(null);
    expect(response.headers.get("x-svc-event-epoch")).toBe(bus.epoch);
    expect(decoder.decode((await reader.read()).value)).toBe("retry: 3000\n\n");
    bus.publish("a", { n: 1 });
    bus.publish("b", { n: 2 });
    bus.close();
    const text = await readAll(reader);
    expect(text).toStartWith("id: 1\nevent: a\ndata: ");
    expect(text.match(/^id: \d+$/gm)).toEqual(["id: 1", "id: 2"]);
    expect(closes()).toBe(1);
  });

  test("a quiet stream gets `: heartbeat` comments, and frames still follow them", async () => {
    const { bus, reader } = setup(null, 40);
    expect(decoder.decode((await reader.read()).value)).toBe("retry: 3000\n\n");
    const started = Date.now();
    expect(decoder.decode((await reader.read()).value)).toBe(": heartbeat\n\n");
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(decoder.decode((await reader.read()).value)).toBe(": heartbeat\n\n");
    bus.publish("a", { n: 1 });
    expect(decoder.decode((await reader.read()).value)).toStartWith("id: 1\nevent: a\n");
    bus.close();
    await reader.cancel();
  });

  test("a client that stops reading is evicted after the writer idle timeout, and the subscription is released", async () => {
    const { bus, reader, closes } = setup(300);
    expect(decoder.decode((await reader.read()).value)).toBe("retry: 3000\n\n");
    // Frames arrive, but the client reads nothing more until the writer gives up on it.
    bus.publish("a", {});
    await until(() => closes() === 1, 3000, "the idle writer to give up");
    const text = await readAll(reader);
    const evicted = text.split("\n\n").find((block) => block.startsWith("event: client_evicted"));
    expect(evicted).toBeDefined();
    expect(JSON.parse(evicted!.split("\n")[1]!.slice("data: ".length)).data).toMatchObject({ reason: "writer_idle_timeout", timeoutMs: 300, idleForMs: expect.any(Number) });
    expect(closes()).toBe(1);
    expect(bus.subscriberCount).toBe(0);
  });

  test("a frame larger than a chunk goes out in slices and arrives whole", async () => {
    const { bus, reader } = setup(null);
    await reader.read();
    const frame = bus.publish("session_update", { diff: "d".repeat(5 * WRITE_CHUNK_BYTES) })!;
    bus.publish("after", {});
    bus.close();
    const chunks = await readChunks(reader);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.byteLength).toBeLessThanOrEqual(WRITE_CHUNK_BYTES);
    const text = chunks.map((c) => decoder.decode(c)).join("");
    expect(text.startsWith(frame.text)).toBe(true);
    expect(envelopes(text).map((e) => e.id)).toEqual([1, 2]);
  });

  test("a replay goes out in chunks of at most WRITE_CHUNK_BYTES, never as one buffer", async () => {
    const { reader } = setup(null, undefined, (bus) => {
      for (let i = 0; i < 200; i++) bus.publish("session_update", { n: i, pad: "p".repeat(5000) });
    });
    await reader.read();
    const replay: Uint8Array[] = [];
    for (let text = ""; !text.includes("replay_complete"); text = decoder.decode(replay.at(-1)!)) replay.push((await reader.read()).value!);
    expect(replay.length).toBeGreaterThan(10);
    for (const chunk of replay) expect(chunk.byteLength).toBeLessThanOrEqual(WRITE_CHUNK_BYTES);
    expect(envelopes(replay.map((c) => decoder.decode(c)).join("")).map((e) => e.id ?? e.type)).toEqual([...Array.from({ length: 200 }, (_, i) => i + 1), "replay_complete"]);
    await reader.cancel();
  });

  test("the writer idle timeout finishes a frame it had started before the eviction frame", async () => {
    const { bus, reader, closes } = setup(300);
    await reader.read();
    const frame = bus.publish("session_update", { diff: "d".repeat(3 * WRITE_CHUNK_BYTES) })!;
    const first = (await reader.read()).value!;
    expect(first.byteLength).toBe(WRITE_CHUNK_BYTES);
    // The client reads nothing more until the writer gives up on it.
    await until(() => closes() === 1, 3000, "the idle writer to give up");
    const text = decoder.decode(first) + (await readAll(reader));
    expect(text.startsWith(frame.text)).toBe(true);
    expect(envelopes(text).map((e) => e.type)).toEqual(["session_update", "client_evicted"]);
  });

  test("cancelling the body releases the subscription once", async () => {
    const { bus, reader, closes } = setup(null);
    await reader.read();
    await reader.cancel();
    await reader.cancel().catch(() => {});
    expect(closes()).toBe(1);
    expect(bus.subscriberCount).toBe(0);
    expect(() => bus.publish("after", {})).not.toThrow();
  });
});
