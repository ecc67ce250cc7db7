import { describe, expect, test } from "bun:test";
import type { LineOwner } from "../../../src/runtime/oversized-line.ts";
import { guardStdout, STRAY_BURST_LINES, STRAY_LINES_PER_SECOND, StrayOutputBudget } from "../../../src/runtime/stdout-guard.ts";

const MAX_LINE = 1024;

/** A clock the test moves by hand. */
function manualClock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** Runs `lines` (each with its arrival time) through guardStdout; returns the rejection, if any, and the bytes that came out. */
async function guard(lines: ReadonlyArray<{ atMs: number; text: string }>) {
  const clock = manualClock();
  const budget = new StrayOutputBudget(clock.now);
  let rejected = null as string | null;
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const line of lines) {
        clock.advance(line.atMs - clock.now());
        controller.enqueue(encoder.encode(line.text));
        await Bun.sleep(0); // let the guard see this chunk at this time
      }
      controller.close();
    },
  });
  let out = "";
  const hooks = { onReject: (why: string) => void (rejected = why), onOversized: () => null };
  const reader = guardStdout(source, budget, hooks, MAX_LINE).getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) out += new TextDecoder().decode(next.value);
  } catch {
    // the guard errors the stream when it cuts the child off
  }
  return { rejected, out };
}

describe("StrayOutputBudget", () => {
  test("a burst of STRAY_BURST_LINES is allowed, one more at the same instant is not", () => {
    const clock = manualClock();
    const budget = new StrayOutputBudget(clock.now);
    for (let i = 0; i < STRAY_BURST_LINES; i++) expect(budget.spend()).toBe(true);
    expect(budget.spend()).toBe(false);
  });

  test("stray lines over a long life never add up: 10 000 lines at half the allowed rate all pass", () => {
    const clock = manualClock();
    const budget = new StrayOutputBudget(clock.now);
    for (let i = 0; i < 10_000; i++) {
      clock.advance(2000 / STRAY_LINES_PER_SECOND);
      expect(budget.spend()).toBe(true);
    }
  });

  test("a sustained flood above the rate is cut off once the burst is spent", () => {
    const clock = manualClock();
    const budget = new StrayOutputBudget(clock.now);
    let accepted = 0;
    while (budget.spend()) {
      accepted++;
      clock.advance(1000 / (2 * STRAY_LINES_PER_SECOND));
      if (accepted > 10 * STRAY_BURST_LINES) break;
    }
    expect(accepted).toBeGreaterThanOrEqual(STRAY_BURST_LINES);
    expect(accepted).toBeLessThan(2 * STRAY_BURST_LINES + 1);
  });
});

describe("guardStdout", () => {
  test("passes every byte through, and tolerates 3 × STRAY_BURST_LINES non-JSON lines spread over time", async () => {
    const lines = Array.from({ length: 3 * STRAY_BURST_LINES }, (_, i) => ({ atMs: i * (1000 / STRAY_LINES_PER_SECOND), text: `stray ${i}\n{"jsonrpc":"2.0","method":"x"}\n` }));
    const { rejected, out } = await guard(lines);
    expect(rejected).toBeNull();
    expect(out).toBe(lines.map((l) => l.text).join(""));
  });

  test("cuts off a flood of non-JSON lines", async () => {
    const { rejected } = await guard(Array.from({ length: STRAY_BURST_LINES + 1 }, (_, i) => ({ atMs: 0, text: `stray ${i}\n` })));
    expect(rejected).toContain("non-JSON lines");
  });

  test("blank lines and lines starting with `{` are not stray", async () => {
    const { rejected } = await guard(Array.from({ length: 2 * STRAY_BURST_LINES }, () => ({ atMs: 0, text: '\n  \r\n{"id":1,"result":{}}\n' })));
    expect(rejected).toBeNull();
  });
});

/** Runs `chunks` through guardStdout with no stray budget concerns; returns what came out and the dropped lines. */
async function pass(chunks: ReadonlyArray<string | Uint8Array>, standIn: (bytes: number, owner: LineOwner) => string | null = () => null) {
  const dropped: Array<{ bytes: number; owner: LineOwner }> = [];
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  });
  const hooks = {
    onReject: () => {},
    onOversized: (bytes: number, owner: LineOwner) => {
      dropped.push({ bytes, owner });
      const line = standIn(bytes, owner);
      return line === null ? null : encoder.encode(line);
    },
  };
  const pieces: Uint8Array[] = [];
  const reader = guardStdout(source, new StrayOutputBudget(), hooks, MAX_LINE).getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) pieces.push(next.value);
  return { out: new TextDecoder().decode(Buffer.concat(pieces)), pieces, dropped };
}

describe("guardStdout: lines over the bound", () => {
  test("lines pass on whole, however the chunks cut them", async () => {
    const text = '{"id":1,"result":{}}\n{"method":"a"}\n{"method":"b","params":{"x":"' + "y".repeat(500) + '"}}\n';
    for (const size of [1, 7, 64, 1000]) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      const { out, pieces, dropped } = await pass(chunks);
      expect(out).toBe(text);
      expect(dropped).toEqual([]);
      // Every piece ends a line: the reader after the guard never holds a partial one.
      for (const piece of pieces) expect(piece.at(-1)).toBe(0x0a);
    }
  });

  test("a line over the bound is dropped whole, its owner found wherever it is, and its stand-in put in its place", async () => {
    const huge = `{"jsonrpc":"2.0","result":{"pad":"${"z".repeat(5000)}","nested":{"id":99,"method":"inner"}},"id":7}`;
    const chunks = ['{"method":"before"}\n{"jsonrpc"', huge.slice(10, 3000), huge.slice(3000), '\n{"method":"after"}\n'];
    const { out, dropped } = await pass(chunks, (bytes) => `{"standIn":${bytes}}\n`);
    expect(dropped).toEqual([{ bytes: huge.length, owner: { id: 7, method: null, sessionId: null, kind: "response" } }]);
    expect(out).toBe(`{"method":"before"}\n{"standIn":${huge.length}}\n{"method":"after"}\n`);
  });

  test("a line exactly at the bound passes; one byte more is dropped", async () => {
    const at = `{"method":"m","params":{"p":"${"a".repeat(MAX_LINE - 32)}"}}`;
    expect(at.length).toBe(MAX_LINE);
    expect((await pass([`${at}\n`])).dropped).toEqual([]);
    const over = `{"method":"m","params":{"p":"${"a".repeat(MAX_LINE - 31)}"}}`;
    expect((await pass([`${over}\n`])).dropped).toHaveLength(1);
  });

  test("a line over the bound with no newline before the stream ends is still reported", async () => {
    const head = '{"method":"session/update","params":{"sessionId":"s1","u":"';
    const { out, dropped } = await pass([head, "q".repeat(3000)]);
    expect(out).toBe("");
    expect(dropped).toEqual([{ bytes: head.length + 3000, owner: { id: null, method: "session/update", sessionId: "s1", kind: "notification" } }]);
  });
});
