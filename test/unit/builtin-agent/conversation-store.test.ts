import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, MAX_HISTORY_BYTES, MAX_HISTORY_MESSAGES } from "../../../src/builtin-agent/agent-session.ts";
import { COMPACT_AFTER_BYTES, COMPACT_AFTER_LINES, ConversationStore, MAX_FILE_BYTES } from "../../../src/builtin-agent/conversation-store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

test("the saved file stays bounded by compaction and loads as the kept history", async () => {
  await using dir = tempDir();
  const store = new ConversationStore(dir.path);
  const id = crypto.randomUUID();
  const session = new AgentSession(id, "/ws", "auto", null, (line, h) => store.append(id, "/ws", line, h));
  for (let i = 0; i < 3 * COMPACT_AFTER_LINES; i++) session.remember({ role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `m${i}` }] });
  const lines = readFileSync(join(dir.path, `${id}.jsonl`), "utf8").trim().split("\n");
  expect(lines.length).toBeLessThanOrEqual(COMPACT_AFTER_LINES + 1);
  const loaded = new ConversationStore(dir.path).load(id)!;
  expect(loaded.cwd).toBe("/ws");
  expect(loaded.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: `m${3 * COMPACT_AFTER_LINES - 1}` }] });
  expect(loaded.messages.length).toBeGreaterThanOrEqual(MAX_HISTORY_MESSAGES - 1);
  expect(loaded.messages[0]!.role).toBe("user");
});

test("ids that are not UUIDs never name a file, even one that exists", async () => {
  await using dir = tempDir();
  writeFileSync(join(dir.path, "outside.jsonl"), `${JSON.stringify({ v: 1, cwd: "/ws" })}\n`);
  const store = new ConversationStore(join(dir.path, "store"));
  expect(store.load("../outside")).toBeNull();
  expect(store.load("x")).toBeNull();
});

test("history and file are bounded in bytes: big replies drop whole old exchanges, the file is compacted by size", async () => {
  await using dir = tempDir();
  const store = new ConversationStore(dir.path);
  const id = crypto.randomUUID();
  const session = new AgentSession(id, "/ws", "auto", null, (line, h) => store.append(id, "/ws", line, h));
  const reply = "€".repeat(1024 * 1024 / 3); // 1 MiB of UTF-8 in a third as many characters
  let largestFile = 0;
  for (let i = 0; i < 60; i++) {
    session.remember({ role: "user", content: [{ type: "text", text: `q${i}` }] });
    session.remember({ role: "assistant", content: [{ type: "text", text: reply }] });
    expect(session.historyBytes).toBeLessThanOrEqual(MAX_HISTORY_BYTES);
    expect(session.overflowing).toBe(false);
    largestFile = Math.max(largestFile, statSync(join(dir.path, `${id}.jsonl`)).size);
  }
  expect(session.history[0]).toEqual({ role: "user", content: [{ type: "text", text: expect.stringMatching(/^q\d+$/) }] });
  expect(session.history.length).toBeLessThan(40);
  expect(largestFile).toBeLessThanOrEqual(MAX_HISTORY_BYTES + COMPACT_AFTER_BYTES + 1024 * 1024);
  expect(largestFile).toBeLessThan(MAX_FILE_BYTES);
  const loaded = new ConversationStore(dir.path).load(id)!;
  expect(loaded.messages.at(-2)).toEqual({ role: "user", content: [{ type: "text", text: "q59" }] });
});

test("a running exchange over the byte bound is kept whole and reported as overflowing", () => {
  const session = new AgentSession(crypto.randomUUID(), "/ws", "auto", null, () => {});
  session.remember({ role: "user", content: [{ type: "text", text: "old" }] });
  session.remember({ role: "user", content: [{ type: "text", text: "go" }] });
  for (let i = 0; i * 1024 * 1024 <= MAX_HISTORY_BYTES; i++) session.remember({ role: "assistant", content: [{ type: "text", text: "x".repeat(1024 * 1024) }] });
  expect(session.history[0]).toEqual({ role: "user", content: [{ type: "text", text: "go" }] });
  expect(session.overflowing).toBe(true);
  // The next prompt starts a new exchange: the oversized one goes.
  session.remember({ role: "user", content: [{ type: "text", text: "next" }] });
  expect(session.history).toEqual([{ role: "user", content: [{ type: "text", text: "next" }] }]);
  expect(session.overflowing).toBe(false);
});
