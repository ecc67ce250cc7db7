/**
 * The model's deltas reach the client gathered into few chunks (hostile review round 2: one
 * notification, and one journaled daemon event, per one-byte delta), without reordering text
 * against reasoning or tool calls, and without holding any past the end of its round.
 */
import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { startAgent } from "./agent-client.ts";

const isUsageChunk = (u: acp.SessionUpdate) => u.sessionUpdate === "agent_message_chunk" && u._meta?.usage !== undefined;
/** The turn's updates as `<kind>:<text>` (text chunks) or their kind, the usage chunk as `usage`. */
const sequence = (updates: acp.SessionUpdate[]) =>
  updates.map((u) =>
    isUsageChunk(u) ? "usage" : (u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "agent_thought_chunk") && u.content.type === "text" ? `${u.sessionUpdate}:${u.content.text}` : u.sessionUpdate,
  );

describe("chunk coalescing", () => {
  test("200,000 one-byte deltas reach the client whole, in a few chunks", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    const text = "abcdefghij".repeat(20_000);
    a.model.enqueue({ kind: "text", text, chunkChars: 1 });
    const started = performance.now();
    const { updates } = await a.turn(sessionId, "tiny deltas");
    const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk" && !isUsageChunk(u)).length;
    console.error(`200,000 one-byte deltas: ${chunks} agent_message_chunk notifications, turn of ${(performance.now() - started).toFixed(0)} ms`);
    expect(a.agentText(sessionId)).toBe(text);
    expect(chunks).toBeLessThan(2000);
  });

  test("text and reasoning keep their order, all of a round's come before its tool call, and the turn's before its usage chunk", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo", files: { "f.txt": "hello\n" } });
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      { kind: "mixed", parts: [{ text: "a" }, { text: "b" }, { reasoning: "r" }, { reasoning: "s" }, { text: "c" }], calls: [{ name: "read_file", args: { file_path: "f.txt" } }] },
      { kind: "mixed", parts: [{ reasoning: "t" }, { text: "done" }] },
    );
    const { updates } = await a.turn(sessionId, "mixed");
    const kinds = sequence(updates).filter((k) => k !== "tool_call_update" && k !== "available_commands_update");
    expect(kinds).toEqual(["agent_message_chunk:ab", "agent_thought_chunk:rs", "agent_message_chunk:c", "tool_call", "agent_thought_chunk:t", "agent_message_chunk:done", "usage"]);
  });
});
