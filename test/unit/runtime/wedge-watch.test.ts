/**
 * The wedge rule: WEDGE_TIMEOUTS timeouts with no answer since the first of them was sent, and
 * WEDGE_SILENCE_MS passed since that send; at the count, one probe a reading child answers at once.
 */
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
  const probes: number[] = [];
  const { clock, advance, pending } = manualClock();
  return { w: new WedgeWatch((v) => verdicts.push(v), () => probes.push(clock.now()), clock), verdicts, probes, advance, pending };
}

/** `n` requests sent now, as the channel does: their send times. */
const sendAll = (w: WedgeWatch, n: number) => Array.from({ length: n }, () => w.sent());

describe("WedgeWatch", () => {
  test("a child that answers nothing: wedged at the third timeout once the window has passed since the first was sent", () => {
    const { w, verdicts, advance } = watch();
    const first = w.sent();
    advance(WEDGE_SILENCE_MS / 2);
    w.timedOut("session/new", first);
    for (let i = 1; i < WEDGE_TIMEOUTS; i++) {
      expect(verdicts).toEqual([]);
      const sentAt = w.sent();
      advance(WEDGE_SILENCE_MS / 2);
      w.timedOut("session/new", sentAt);
    }
    expect(verdicts).toEqual([{ timeouts: WEDGE_TIMEOUTS, methods: Array(WEDGE_TIMEOUTS).fill("session/new"), silentMs: (WEDGE_TIMEOUTS * WEDGE_SILENCE_MS) / 2 }]);
    w.timedOut("session/new", w.sent());
    expect(verdicts).toHaveLength(1);
  });

  test("timeouts that come fast wait for the window since the first send, then the verdict comes by itself", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < WEDGE_TIMEOUTS; i++) {
      const sentAt = w.sent();
      advance(1000);
      w.timedOut(`m${i}`, sentAt);
    }
    advance(WEDGE_SILENCE_MS - WEDGE_TIMEOUTS * 1000 - 1);
    expect(verdicts).toEqual([]);
    advance(1);
    expect(verdicts).toEqual([{ timeouts: WEDGE_TIMEOUTS, methods: ["m0", "m1", "m2"], silentMs: WEDGE_SILENCE_MS }]);
  });

  test("an idle child carries no silence into its next requests: requests sent together after a long idle spell reach no verdict before the window has passed since they went out", () => {
    const { w, verdicts, advance } = watch();
    // A turn ends (the child's last message), then nobody asks it anything for longer than the window.
    w.heard();
    advance(WEDGE_SILENCE_MS + 5000);
    // One status page: six reads at once, three of them time out after 5 s…
    const sent = sendAll(w, 6);
    advance(5000);
    for (const sentAt of sent.slice(0, WEDGE_TIMEOUTS)) w.timedOut("qwen/status/workspace/mcp", sentAt);
    expect(verdicts).toEqual([]);
    // …and the answers come at 6 s.
    advance(1000);
    w.heard();
    advance(10 * WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });

  test("three session/new sent together after 31 s idle time out at 10 s; the answer at 12 s clears them", () => {
    const { w, verdicts, advance, pending } = watch();
    w.heard();
    advance(31_000);
    const sent = sendAll(w, 3);
    advance(10_000);
    for (const sentAt of sent) w.timedOut("session/new", sentAt);
    expect(verdicts).toEqual([]);
    expect(pending()).toBe(1);
    advance(2000);
    w.heard();
    expect(pending()).toBe(0);
    advance(10 * WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });

  test("a request sent before the child last spoke does not count when it times out: the child answered something since it was asked", () => {
    const { w, verdicts, advance } = watch();
    const early = sendAll(w, WEDGE_TIMEOUTS);
    advance(1000);
    w.heard(); // an answer to another request
    advance(WEDGE_SILENCE_MS);
    for (const sentAt of early) w.timedOut("session/set_model", sentAt);
    advance(10 * WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });

  test("a slow but live child is never wedged: each late answer clears the count", () => {
    const { w, verdicts, advance } = watch();
    for (let i = 0; i < 1000; i++) {
      const sentAt = w.sent();
      advance(WEDGE_SILENCE_MS);
      w.timedOut("session/new", sentAt);
      advance(5000);
      w.heard(); // the late answer
    }
    expect(verdicts).toEqual([]);
  });

  test("at the count the child is probed once; a child that answers the probe (slow to answer the rest) is never wedged", () => {
    const { w, verdicts, probes, advance, pending } = watch();
    for (let round = 0; round < 100; round++) {
      const sent = sendAll(w, 10 * WEDGE_TIMEOUTS);
      advance(10_000);
      for (const sentAt of sent.slice(0, WEDGE_TIMEOUTS - 1)) w.timedOut("session/new", sentAt);
      expect(probes).toHaveLength(round);
      for (const sentAt of sent.slice(WEDGE_TIMEOUTS - 1)) w.timedOut("session/new", sentAt);
      expect(probes).toHaveLength(round + 1);
      expect(pending()).toBe(1);
      advance(5);
      w.heard(); // the probe's "method not found"
      expect(pending()).toBe(0);
      advance(WEDGE_SILENCE_MS);
    }
    expect(verdicts).toEqual([]);
  });

  test("a child that does not answer the probe is wedged once the window has passed; it is probed only once", () => {
    const { w, verdicts, probes, advance } = watch();
    for (const sentAt of sendAll(w, WEDGE_TIMEOUTS)) w.timedOut("session/new", sentAt);
    advance(WEDGE_SILENCE_MS / 2);
    w.timedOut("session/new", w.sent());
    advance(WEDGE_SILENCE_MS / 2);
    expect(probes).toEqual([0]);
    expect(verdicts).toHaveLength(1);
  });

  test("fewer timeouts than the rule, however long the silence, is no verdict; nor is silence alone", () => {
    const { w, verdicts, advance } = watch();
    for (const sentAt of sendAll(w, WEDGE_TIMEOUTS - 1)) w.timedOut("x", sentAt);
    advance(100 * WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });

  test("a closed watch gives no verdict", () => {
    const { w, verdicts, advance } = watch();
    for (const sentAt of sendAll(w, WEDGE_TIMEOUTS)) w.timedOut("x", sentAt);
    w.close();
    advance(WEDGE_SILENCE_MS);
    expect(verdicts).toEqual([]);
  });

  test("lastHeardAt is when the child last answered", () => {
    const { w, advance } = watch();
    expect(w.lastHeardAt).toBe(0);
    advance(1234);
    w.heard();
    expect(w.lastHeardAt).toBe(1234);
  });
});
