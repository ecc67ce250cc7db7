import { expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { EARLY_BYTES, EARLY_SESSIONS, EARLY_UPDATES, EarlyUpdates, type EarlyDropReason } from "../../../src/runtime/early-updates.ts";

/** An agent_message_chunk for `sessionId` whose text is `size` characters of `tag`. */
function chunk(sessionId: string, tag: string, size = 1): acp.SessionNotification {
  return { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: tag.repeat(size) } } };
}
const textOf = (u: acp.SessionNotification) => (u.update as { content: { text: string } }).content.text;

function recorder() {
  const drops: Array<{ sessionId: string; reason: EarlyDropReason }> = [];
  const early = new EarlyUpdates((sessionId, reason) => drops.push({ sessionId, reason }));
  return { early, drops };
}

test("a registering session takes its held updates in arrival order, and only its own", () => {
  const { early, drops } = recorder();
  early.hold(chunk("a", "1"));
  early.hold(chunk("b", "x"));
  early.hold(chunk("a", "2"));
  expect(early.take("a").map(textOf)).toEqual(["1", "2"]);
  expect(early.take("a")).toEqual([]);
  expect(early.take("b").map(textOf)).toEqual(["x"]);
  expect(early.heldBytes).toBe(0);
  expect(drops).toEqual([]);
});

test("held bytes never pass EARLY_BYTES: the oldest updates, of any id, make room, each drop reported", () => {
  const { early, drops } = recorder();
  const size = 1024 * 1024;
  const perId = 5;
  // The reviewer's flood: 1 MB updates over five ghost ids, far past the byte cap in all.
  for (let round = 0; round < 8 * perId; round++) {
    early.hold(chunk(`ghost-${round % 5}`, String(round % 10), size));
    expect(early.heldBytes).toBeLessThanOrEqual(EARLY_BYTES);
  }
  expect(early.heldBytes).toBeGreaterThan(EARLY_BYTES - 2 * size);
  expect(drops.length).toBeGreaterThan(0);
  expect(drops.every((d) => d.reason === "too_many_bytes")).toBe(true);
  // What is left is the newest: ghost-4's last update survived.
  expect(early.take("ghost-4").map(textOf).at(-1)).toBe("9".repeat(size));
});

test("one update larger than EARLY_BYTES by itself is dropped and evicts nothing", () => {
  const { early, drops } = recorder();
  early.hold(chunk("a", "k"));
  early.hold(chunk("b", "z", EARLY_BYTES + 1));
  expect(drops).toEqual([{ sessionId: "b", reason: "too_many_bytes" }]);
  expect(early.take("a").map(textOf)).toEqual(["k"]);
  expect(early.take("b")).toEqual([]);
});

test("making room inside the same id keeps the new update held", () => {
  const { early } = recorder();
  const half = Math.floor(EARLY_BYTES / 2);
  early.hold(chunk("a", "1", half));
  early.hold(chunk("a", "2", half));
  expect(early.take("a").map((u) => textOf(u)[0])).toEqual(["2"]);
  expect(early.heldBytes).toBe(0);
});

test("at most EARLY_SESSIONS ids (a new one drops the oldest) and EARLY_UPDATES updates per id", () => {
  const { early, drops } = recorder();
  for (let i = 0; i <= EARLY_SESSIONS; i++) early.hold(chunk(`s${i}`, "x"));
  expect(early.take("s0")).toEqual([]);
  expect(drops).toEqual([{ sessionId: "s0", reason: "too_many_sessions" }]);
  for (let i = 0; i < EARLY_UPDATES + 3; i++) early.hold(chunk("busy", "y"));
  expect(early.take("busy")).toHaveLength(EARLY_UPDATES);
  expect(drops.filter((d) => d.reason === "too_many_updates")).toHaveLength(3);
});
