/** The wedge rule: WEDGE_TIMEOUTS timeouts in a row, nothing heard since, silent for WEDGE_SILENCE_MS. */
import { describe, expect, test } from "bun:test";
import { WEDGE_SILENCE_MS, WEDGE_TIMEOUTS, WedgeWatch, type WedgeClock, type WedgeVerdict } from "../../../src/runtime/wedge-watch.ts";

/** A clock and timer the test moves by hand. */
function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void }> = [];
  const clock: WedgeClock = {
    now: () => now,
    later(fn, ms) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => void (timers = timers.filter((t) => t !== timer));
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers.filter((t) => t.at <= now)) {
      timers = timers.filter((other) => other !== t);
      t.fn();
    }
  };
  return { clock, advance, pending: () => timers.length };
}

function watch() {
  const verdicts: WedgeVerdict[] = [];
  const { clock, advance, pending } = manualClock();
  return { w: new WedgeWatch((v) => verdicts.push(v), clock), verdicts, advance, pending };
}

describe("WedgeWatch", () => {
  test("a child that answers nothing: wedged at the third timeout once it has been silent for the window", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < WEDGE_TIMEOUTS; i++) {
      expect(verdicts).toEqual([]);
      advance(WEDGE_SILENCE_MS / 2);
      w.timedOut("session/new");
    }
    expect(verdicts).toEqual([{ timeouts: WEDGE_TIMEOUTS, methods: Array(WEDGE_TIMEOUTS).fill("session/new"), silentMs: (WEDGE_TIMEOUTS * WEDGE_SILENCE_MS) / 2 }]);
    w.timedOut("session/new");
    expect(verdicts).toHaveLength(1);
  });

  test("timeouts that come fast wait for the window, then the verdict comes by itself", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < WEDGE_TIMEOUTS; i++) w.timedOut(`m${i}`);
    advance(WEDGE_SILENCE_MS - 1);
    expect(verdicts).toEqual([]);
    advance(1);
    expect(verdicts).toEqual([{ timeouts: WEDGE_TIMEOUTS, methods: ["m0", "m1", "m2"], silentMs: WEDGE_SILENCE_MS }]);
  });

  test("a slow but live child is never wedged: each late answer clears the count", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < 1000; i++) {
      advance(WEDGE_SILENCE_MS);
      w.timedOut("svc/status/workspace/mcp");
      advance(5000);
      w.heard(); // the late answer
    }
    expect(verdicts).toEqual([]);
  });

  test("a child streaming a turn is never wedged, even while a burst of its requests times out", () => {
    const { w, verdicts, advance, pending } = watch();
    for (let i = 0; i < 10 * WEDGE_TIMEOUTS; i++) w.timedOut("session/new");
    expect(pending()).toBe(1);
    for (let s = 0; s < 120; s++) {
      advance(1000);
      w.heard(); // an update
    }
    expect(pending()).toBe(0);
    expect(verdicts).toEqual([]);
  });

  test("fewer timeouts than the rule, however long the silence, is no verdict; nor is silence alone", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < WEDGE_TIMEOUTS - 1; i++) w.timedOut("x");
    advance(100 * WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });

  test("a closed watch gives no verdict", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < WEDGE_TIMEOUTS; i++) w.timedOut("x");
    w.close();
    advance(WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });
});
