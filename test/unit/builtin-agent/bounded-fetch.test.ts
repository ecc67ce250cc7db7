/** The bounded fetch counts events at every line-end style and chunk split, bodies whole, and keeps error bodies short. */
import { describe, expect, test } from "bun:test";
import { boundedFetch, overflowIn, ResponseOverflow, type FetchBounds, type FetchFn } from "../../../src/builtin-agent/bounded-fetch.ts";

const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream; charset=utf-8" };

/** A fetch answering with `chunks` as they are split here; `pulled` counts the chunks the reader took. */
function serving(chunks: string[], init: ResponseInit = { headers: SSE }): { fetch: FetchFn; pulled: () => number; cancelled: () => boolean } {
  let index = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (index === chunks.length) return controller.close();
        controller.enqueue(encoder.encode(chunks[index++]));
      },
      cancel: () => void (cancelled = true),
    },
    { highWaterMark: 0 },
  );
  return { fetch: async () => new Response(body, init), pulled: () => index, cancelled: () => cancelled };
}

const bounds = (b: Partial<FetchBounds>): FetchBounds => ({ eventBytes: 16, responseBytes: Infinity, errorBodyBytes: 8, ...b });

/** Reads the bounded body whole: its text, or the overflow it failed with. */
async function read(fetch: FetchFn): Promise<string | ResponseOverflow> {
  const response = await fetch("http://127.0.0.1/");
  try {
    return await response.text();
  } catch (err) {
    const overflow = overflowIn(err);
    if (overflow === null) throw err;
    return overflow;
  }
}

describe("bounded fetch", () => {
  test("events end at a blank line for LF, CRLF and CR line ends, split anywhere", async () => {
    const twelve = "data: 123456";
    for (const end of ["\n\n", "\r\n\r\n", "\r\r"]) {
      const stream = `${twelve}${end}${twelve}${end}${twelve}${end}`;
      // Split after every byte: a CRLF or a blank line across chunks counts the same.
      const server = serving([...stream]);
      expect(await read(boundedFetch(bounds({ eventBytes: 13 }), {}, server.fetch))).toBe(stream);
    }
  });

  test("an event's lines count together: many short lines with no blank line pass the event bound", async () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      const server = serving(["a", "b", "c", "d", "e"].map((x) => `data: ${x}${end}`));
      const result = await read(boundedFetch(bounds({ eventBytes: 24 }), {}, server.fetch));
      expect(result).toBeInstanceOf(ResponseOverflow);
      expect((result as ResponseOverflow).message).toBe("the response passed the limit of 24 bytes in one event of the response stream; it was not read further");
      expect(server.pulled()).toBe(4);
      expect(server.cancelled()).toBe(true);
    }
  });

  test("a line that never ends fails at the bound, and the rest is never read", async () => {
    const server = serving(["data: ", ...Array.from({ length: 1000 }, () => "x".repeat(10))]);
    const overflows: ResponseOverflow[] = [];
    const result = await read(boundedFetch(bounds({ eventBytes: 100 }), { onOverflow: (o) => overflows.push(o) }, server.fetch));
    expect(result).toBeInstanceOf(ResponseOverflow);
    expect(overflows).toEqual([result as ResponseOverflow]);
    expect(server.pulled()).toBe(11);
    expect(server.cancelled()).toBe(true);
  });

  test("a body that is not an event stream is one unit, blank lines or not", async () => {
    const server = serving(["{\n\n", "\n\n".repeat(10), "}"], { headers: { "content-type": "application/json" } });
    expect(((await read(boundedFetch(bounds({ eventBytes: 20 }), {}, server.fetch))) as ResponseOverflow).limit).toBe("20 bytes in one response body");
    const small = serving(["{", "}"], { headers: { "content-type": "application/json" } });
    expect(await read(boundedFetch(bounds({ eventBytes: 20 }), {}, small.fetch))).toBe("{}");
  });

  test("the whole response is bounded however small its events, and every chunk is heard", async () => {
    const server = serving(Array.from({ length: 100 }, () => "data: {}\n\n"));
    let heard = 0;
    const result = await read(boundedFetch(bounds({ responseBytes: 205 }), { onBytes: (n) => void (heard += n) }, server.fetch));
    expect((result as ResponseOverflow).limit).toBe("205 bytes in one response");
    expect(heard).toBe(210);
  });

  test("an error body is cut to its bound, the rest never read; status, headers and url are kept", async () => {
    const server = serving(["0123456", "789abc", ...Array.from({ length: 1000 }, () => "z")], { status: 503, statusText: "Busy", headers: { "retry-after": "2", "content-length": "1013" } });
    const response = await boundedFetch(bounds({ errorBodyBytes: 10 }), {}, async (input, init) => {
      const r = await server.fetch(input, init);
      Object.defineProperty(r, "url", { value: "http://127.0.0.1/v1/chat" });
      return r;
    })("http://127.0.0.1/v1/chat");
    expect(await response.text()).toBe("0123456789");
    expect({ status: response.status, statusText: response.statusText, url: response.url }).toEqual({ status: 503, statusText: "Busy", url: "http://127.0.0.1/v1/chat" });
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.headers.get("content-length")).toBeNull();
    expect(server.pulled()).toBe(2);
    expect(server.cancelled()).toBe(true);
  });
});
