/**
 * The SSE writer on its own (a bus subscription read through the Response body): `retry:` first,
 * frames in order, the end of the subscription ends the body, and the writer idle timeout evicts
 * a client that stops reading.
 */
import { describe, expect, test } from "bun:test";
import { EventBus } from "../../../src/events/event-bus.ts";
import { sseResponse } from "../../../src/server/sse-stream.ts";
import { until } from "../../helpers/until.ts";

const decoder = new TextDecoder();

function setup(writerIdleTimeoutMs: number | null, heartbeatMs?: number) {
  const bus = new EventBus({ ringSize: 16, maxSubscribers: 4 });
  const sub = bus.subscribe({ lastEventId: null, epoch: null })!;
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
  let text = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
  return text;
}

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
