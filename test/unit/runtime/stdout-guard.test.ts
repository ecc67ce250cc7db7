import { describe, expect, test } from "bun:test";
import { guardStdout, STRAY_BURST_LINES, STRAY_LINES_PER_SECOND, StrayOutputBudget } from "../../../src/runtime/stdout-guard.ts";

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
  const reader = guardStdout(source, budget, (why) => (rejected = why)).getReader();
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
