/**
 * Bounds on what the agent sends over ACP. The daemon drops the whole channel on a JSON-RPC line
 * over 16 MiB (every session of the agent with it), so nothing the model or a tool produces may
 * reach one notification unbounded. Each bound says what happens past it:
 *
 * - tool-call arguments over MAX_TOOL_INPUT_CHARS: the call fails before it runs, and the history
 *   keeps a stub instead of the arguments (they are not re-sent to the model every round);
 * - `rawInput` (on `tool_call`, the permission ask and replay) over RAW_INPUT_PREVIEW_CHARS: a
 *   preview object with the first characters and a `truncated` marker;
 * - a text block of tool-call content over CONTENT_TEXT_CAP_CHARS: cut, with a note of how much;
 * - a diff whose old plus new text is over DIFF_CAP_CHARS: replaced by a text block saying so;
 * - message and thought text: sent in chunks of at most MESSAGE_CHUNK_CHARS, in order;
 * - a tool name (the model's, it may be anything) over TITLE_CAP_CHARS: cut with `…`.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { WRITE_CAP_BYTES } from "../workspace/file-limits.ts";

/** write_file's content cap plus 1 MiB of room for the arguments' JSON escaping and other fields. */
export const MAX_TOOL_INPUT_CHARS = WRITE_CAP_BYTES + 1024 * 1024;
export const RAW_INPUT_PREVIEW_CHARS = 64 * 1024;
export const CONTENT_TEXT_CAP_CHARS = 64 * 1024;
export const DIFF_CAP_CHARS = 1024 * 1024;
export const MESSAGE_CHUNK_CHARS = 64 * 1024;
export const TITLE_CAP_CHARS = 256;

export function boundTitle(name: string): string {
  return name.length > TITLE_CAP_CHARS ? `${name.slice(0, TITLE_CAP_CHARS)}…` : name;
}

/** Why a call's arguments are refused, or null when they are within the bound. */
export function oversizedInput(input: string): string | null {
  return input.length > MAX_TOOL_INPUT_CHARS ? `the arguments are ${input.length} characters, over the limit of ${MAX_TOOL_INPUT_CHARS}; pass less at once` : null;
}

/** `rawInput` for the client: the parsed arguments when their JSON text is small, else a preview. */
export function rawInputPreview(input: string, parsed: Record<string, unknown>): Record<string, unknown> {
  if (input.length <= RAW_INPUT_PREVIEW_CHARS) return parsed;
  return { truncated: true, totalChars: input.length, preview: input.slice(0, RAW_INPUT_PREVIEW_CHARS) };
}

/** Tool-call content as sent to the client: long text cut, large diffs replaced by a note. */
export function boundContent(blocks: readonly acp.ToolCallContent[]): acp.ToolCallContent[] {
  return blocks.map((block): acp.ToolCallContent => {
    if (block.type === "content" && block.content.type === "text" && block.content.text.length > CONTENT_TEXT_CAP_CHARS) {
      const text = block.content.text;
      return { type: "content", content: { type: "text", text: `${text.slice(0, CONTENT_TEXT_CAP_CHARS)}\n[cut for the client: ${text.length - CONTENT_TEXT_CAP_CHARS} more characters not shown]` } };
    }
    if (block.type === "diff" && (block.oldText?.length ?? 0) + block.newText.length > DIFF_CAP_CHARS)
      return { type: "content", content: { type: "text", text: `[diff of ${block.path} not shown: ${block.oldText?.length ?? 0} → ${block.newText.length} characters, over the ${DIFF_CAP_CHARS}-character diff limit]` } };
    return block;
  });
}

/** `text` in pieces of at most MESSAGE_CHUNK_CHARS (one piece when it fits; never splits a surrogate pair). */
export function messageChunks(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > MESSAGE_CHUNK_CHARS) {
    let end = start + MESSAGE_CHUNK_CHARS;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}
