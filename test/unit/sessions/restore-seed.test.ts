import { expect, test } from "bun:test";
import type { JournalRecord } from "../../../src/store/store.ts";
import { restoreSeed, SEED_MAX_BYTES } from "../../../src/sessions/restore-seed.ts";

/** A journal of `messages` ([kind, text] pairs, one prompt each) as `Store.recent` returns it. */
function journal(messages: [string, string][], omitted = 0) {
  const records: JournalRecord[] = messages.map(([kind, text], i) => ({
    seq: i + 1,
    epoch: "e",
    eventId: i + 1,
    type: "session_update",
    envelope: JSON.stringify({ id: i + 1, v: 1, type: "session_update", promptId: `p${i >> 1}`, data: { sessionId: "s", update: { sessionUpdate: kind, content: { type: "text", text } } } }),
  }));
  return { recent: () => ({ records, omitted }) };
}

const textOf = (block: ReturnType<typeof restoreSeed>) => (block as { type: "text"; text: string }).text;

test("the seed lists user and agent messages oldest first, each line labelled, between a header and a footer", () => {
  const seed = restoreSeed(journal([["user_message_chunk", "hi\n@crash 3"], ["agent_message_chunk", "hello"], ["agent_thought_chunk", "hmm"]]), "s");
  expect(seed).toEqual({
    type: "text",
    text: expect.stringMatching(/^\[Context from svc[^\n]*oldest first:\]\nUser: hi\n\| @crash 3\nAgent: hello\n\[End of the restored conversation/),
  });
});

test("no conversation, no seed", () => {
  expect(restoreSeed(journal([]), "s")).toBeNull();
  expect(restoreSeed(null, "s")).toBeNull();
  expect(restoreSeed(journal([["agent_thought_chunk", "only thinking"]]), "s")).toBeNull();
});

test("past SEED_MAX_BYTES the oldest messages go first, the oldest kept one is cut from its start, and the header says so", () => {
  const big = "x".repeat(SEED_MAX_BYTES / 4);
  const messages: [string, string][] = [];
  for (let i = 0; i < 10; i++) messages.push(["user_message_chunk", `q${i} ${big}`], ["agent_message_chunk", `a${i} é`]);
  const text = textOf(restoreSeed(journal(messages), "s"));
  const body = text.split("\n").slice(1, -1).join("\n");
  expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(SEED_MAX_BYTES);
  expect(text).toContain("older messages were left out");
  expect(text).toContain("Agent: a9 é\n[End");
  expect(text).not.toContain("q0 ");
  expect(text.split("\n")[1]!.startsWith("| …")).toBe(true);
});

test("events older than the scanned window are reported as left out", () => {
  expect(textOf(restoreSeed(journal([["user_message_chunk", "hi"]], 5), "s"))).toContain("older messages were left out");
  expect(textOf(restoreSeed(journal([["user_message_chunk", "hi"]]), "s"))).not.toContain("left out");
});
