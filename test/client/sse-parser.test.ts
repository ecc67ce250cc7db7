/** The SDK's SSE parser: line ends, fields, comments, and its frame bound. */
import { describe, expect, test } from "bun:test";
import { SseParser } from "../../src/client/sse-parser.ts";

const feed = (parser: SseParser, ...chunks: string[]) => chunks.flatMap((c) => parser.push(c));

describe("SseParser", () => {
  test("parses event, id and data; comments and retry are skipped; a blank line dispatches", () => {
    const frames = feed(new SseParser(), ": heartbeat\n\nretry: 100\nid: 7\nevent: turn_complete\ndata: {\"a\":1}\n\n");
    expect(frames).toEqual([{ id: "7", event: "turn_complete", data: '{"a":1}' }]);
  });

  test("LF, CRLF and CR line ends, split anywhere across chunks, including between CR and LF", () => {
    const text = "event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\revent: c\ndata: 3\n\n";
    for (let cut = 1; cut < text.length; cut++) {
      const frames = feed(new SseParser(), text.slice(0, cut), text.slice(cut));
      expect(frames.map((f) => `${f.event}=${f.data}`)).toEqual(["a=1", "b=2", "c=3"]);
    }
  });

  test("multi-line data joins with newlines; a field without a colon has an empty value", () => {
    expect(feed(new SseParser(), "data: x\ndata\ndata:  y\n\n")).toEqual([{ id: undefined, event: "message", data: "x\n\n y" }]);
  });

  test("a frame over the bound is dropped whole and counted; the next frame parses", () => {
    const parser = new SseParser(64);
    const big = "x".repeat(100);
    const frames = feed(parser, `id: 1\ndata: ${big}\ndata: tail\nid: 2\n\nid: 3\ndata: ok\n\n`);
    expect(frames).toEqual([{ id: "3", event: "message", data: "ok" }]);
    expect(parser.droppedFrames).toBe(1);
  });

  test("a partial line never grows past the bound; the rest of its frame is not emitted as a frame of its own", () => {
    const parser = new SseParser(64);
    const frames: ReturnType<SseParser["push"]> = [];
    frames.push(...parser.push("id: 1\ndata: "));
    for (let i = 0; i < 1000; i++) frames.push(...parser.push("y".repeat(50)));
    expect((parser as unknown as { partial: string }).partial.length).toBeLessThanOrEqual(64);
    frames.push(...parser.push("\n"), ...parser.push("data: leftover\n\n"), ...parser.push("data: next\n\n"));
    expect(frames.map((f) => f.data)).toEqual(["next"]);
    expect(parser.droppedFrames).toBe(1);
  });
});
