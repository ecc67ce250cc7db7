import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentSession, MAX_HISTORY_MESSAGES } from "../../../src/agent/agent-session.ts";
import { COMPACT_AFTER_LINES, ConversationStore } from "../../../src/agent/conversation-store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

test("the saved file stays bounded by compaction and loads as the kept history", async () => {
  await using dir = tempDir();
  const store = new ConversationStore(dir.path);
  const id = crypto.randomUUID();
  const session = new AgentSession(id, "/ws", "auto", null, (m, h) => store.append(id, "/ws", m, h));
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
