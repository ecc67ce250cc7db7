/**
 * A stored conversation as the `session/update`s a client sees on `session/load`: user text as
 * `user_message_chunk`, assistant text as `agent_message_chunk`, and each tool call as a `tool_call`
 * with its final status (completed, or failed when its result was an error), under an id of the
 * agent's own. Bounded like live updates (`acp-bounds.ts`): text in chunks, titles cut, arguments
 * previewed.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { boundTitle, messageChunks, rawInputPreview, toolCallIdFor } from "./acp-bounds.ts";

const text = (t: string): acp.ContentBlock => ({ type: "text", text: t });

export function replayUpdates(messages: readonly LanguageModelV4Message[]): acp.SessionUpdate[] {
  const failed = new Set<string>();
  for (const m of messages)
    if (m.role === "tool") for (const part of m.content) if (part.type === "tool-result" && part.output.type.startsWith("error")) failed.add(part.toolCallId);
  const updates: acp.SessionUpdate[] = [];
  for (const m of messages) {
    if (m.role === "user")
      for (const part of m.content) if (part.type === "text") for (const piece of messageChunks(part.text)) updates.push({ sessionUpdate: "user_message_chunk", content: text(piece) });
    if (m.role === "assistant")
      for (const part of m.content) {
        if (part.type === "text") for (const piece of messageChunks(part.text)) updates.push({ sessionUpdate: "agent_message_chunk", content: text(piece) });
        if (part.type === "tool-call")
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: toolCallIdFor(),
            title: boundTitle(part.toolName),
            status: failed.has(part.toolCallId) ? "failed" : "completed",
            rawInput: rawInputPreview(JSON.stringify(part.input) ?? "", part.input as Record<string, unknown>),
            _meta: { toolName: boundTitle(part.toolName) },
          });
      }
  }
  return updates;
}
