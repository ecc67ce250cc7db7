/**
 * Bounds on what the agent sends over ACP, in UTF-8 bytes (what the wire carries: a character
 * count lets 5.9 million "€" through as 17.7 MB). The daemon's line bound is 16 MiB, so nothing the
 * model or a tool produces may reach one notification unbounded. Cuts never split a UTF-8
 * sequence or a surrogate pair. Each bound says what happens past it:
 *
 * - tool-call arguments over MAX_TOOL_INPUT_BYTES: the call fails before it runs, and the history
 *   keeps a stub instead of the arguments (they are not re-sent to the model every round);
 * - `rawInput` (on `tool_call`, the permission ask and replay) over RAW_INPUT_PREVIEW_BYTES: a
 *   preview object with the first bytes and a `truncated` marker;
 * - `rawOutput` whose JSON is over RAW_OUTPUT_BYTES: replaced by `{truncated, totalBytes}`;
 * - a text block of tool-call content over CONTENT_TEXT_CAP_BYTES: cut, with a note of how much;
 * - a diff whose old plus new text is over DIFF_CAP_BYTES: replaced by a text block saying so;
 * - the blocks of one update past CONTENT_TOTAL_BYTES: the rest replaced by one note;
 * - message and thought text: sent in chunks of at most MESSAGE_CHUNK_BYTES, in order (a long
 *   text is several notifications, never one giant line);
 * - a title, a tool name or a permission option's name over TITLE_CAP_BYTES: cut with `…`;
 * - a location's path over LOCATION_PATH_BYTES: cut with `…`; locations past MAX_LOCATIONS: dropped;
 * - a plan entry over PLAN_ENTRY_BYTES: cut with `…` (the plan tool caps the number of entries);
 * - a failed turn's `details` (a provider's error text, say) over ERROR_DETAILS_BYTES: cut with `…`.
 * Tool-call ids are the agent's own (`toolCallIdFor`), never the model's, whatever their length.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { WRITE_CAP_BYTES } from "../workspace/file-limits.ts";

/** write_file's content cap plus 1 MiB of room for the arguments' JSON escaping and other fields. */
export const MAX_TOOL_INPUT_BYTES = WRITE_CAP_BYTES + 1024 * 1024;
export const RAW_INPUT_PREVIEW_BYTES = 64 * 1024;
export const RAW_OUTPUT_BYTES = 64 * 1024;
export const CONTENT_TEXT_CAP_BYTES = 64 * 1024;
export const DIFF_CAP_BYTES = 1024 * 1024;
export const CONTENT_TOTAL_BYTES = 2 * 1024 * 1024;
export const MESSAGE_CHUNK_BYTES = 64 * 1024;
export const TITLE_CAP_BYTES = 256;
export const LOCATION_PATH_BYTES = 4096;
export const MAX_LOCATIONS = 32;
export const PLAN_ENTRY_BYTES = 4096;
export const ERROR_DETAILS_BYTES = 4096;

const encoder = new TextEncoder();
const ELLIPSIS = "…";
const ELLIPSIS_BYTES = 3;

/** The UTF-8 length of `text` (a lone surrogate counts as U+FFFD, 3 bytes, as it is encoded). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Whether `text` is at most `maxBytes` in UTF-8 (one UTF-16 unit is at most 3 bytes, so short text needs no count). */
function fits(text: string, maxBytes: number): boolean {
  return text.length * 3 <= maxBytes || utf8Bytes(text) <= maxBytes;
}

/**
 * The prefix of `text`, from code unit `start`, whose UTF-8 encoding is the longest that is at
 * most `buffer.length` bytes, as its length in code units. `encodeInto` stops before a character
 * that does not fit whole, so no sequence or surrogate pair is split. It is given a window of
 * `buffer.length` units (no more can fit): a pair the window cuts leaves a lone surrogate at its
 * end, which would take 3 bytes (U+FFFD) after at least `buffer.length - 1` others, so never fits.
 */
function prefixUnits(text: string, start: number, buffer: Uint8Array): number {
  return encoder.encodeInto(text.slice(start, start + buffer.length), buffer).read;
}

/** The longest prefix of `text` whose UTF-8 encoding is at most `maxBytes`. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (fits(text, maxBytes)) return text;
  return text.slice(0, prefixUnits(text, 0, new Uint8Array(maxBytes)));
}

/** `text` cut to `maxBytes` (the `…` included) when it is longer. */
function cutWithEllipsis(text: string, maxBytes: number): string {
  return fits(text, maxBytes) ? text : `${cutUtf8(text, maxBytes - ELLIPSIS_BYTES)}${ELLIPSIS}`;
}

export function boundTitle(name: string): string {
  return cutWithEllipsis(name, TITLE_CAP_BYTES);
}

export function boundPlanEntry(content: string): string {
  return cutWithEllipsis(content, PLAN_ENTRY_BYTES);
}

export function boundDetails(details: string): string {
  return cutWithEllipsis(details, ERROR_DETAILS_BYTES);
}

/** Locations for the client: at most MAX_LOCATIONS, each path at most LOCATION_PATH_BYTES. */
export function boundLocations(locations: readonly acp.ToolCallLocation[]): acp.ToolCallLocation[] {
  return locations.slice(0, MAX_LOCATIONS).map((l) => (fits(l.path, LOCATION_PATH_BYTES) ? l : { ...l, path: cutWithEllipsis(l.path, LOCATION_PATH_BYTES) }));
}

/** The ACP id of a model's tool call: the agent's own, short and unique (the model's id may be anything). */
export function toolCallIdFor(): string {
  return `call_${crypto.randomUUID()}`;
}

/** Why a call's arguments are refused, or null when they are within the bound. */
export function oversizedInput(input: string): string | null {
  if (fits(input, MAX_TOOL_INPUT_BYTES)) return null;
  return `the arguments are ${utf8Bytes(input)} bytes, over the limit of ${MAX_TOOL_INPUT_BYTES}; pass less at once`;
}

/** `rawInput` for the client: the parsed arguments when their JSON text is small, else a preview. */
export function rawInputPreview(input: string, parsed: Record<string, unknown>): Record<string, unknown> {
  if (fits(input, RAW_INPUT_PREVIEW_BYTES)) return parsed;
  return { truncated: true, totalBytes: utf8Bytes(input), preview: cutUtf8(input, RAW_INPUT_PREVIEW_BYTES) };
}

/** `rawOutput` for the client: as the tool gave it when its JSON is small, else a marker with its size. */
export function boundRawOutput(output: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(output) ?? "";
  return fits(json, RAW_OUTPUT_BYTES) ? output : { truncated: true, totalBytes: utf8Bytes(json) };
}

const note = (text: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text } });

/** One block within its own bound: long text cut (saying how much), a large diff replaced by a note. */
function boundBlock(block: acp.ToolCallContent): acp.ToolCallContent {
  if (block.type === "content" && block.content.type === "text" && !fits(block.content.text, CONTENT_TEXT_CAP_BYTES)) {
    const text = block.content.text;
    return note(`${cutUtf8(text, CONTENT_TEXT_CAP_BYTES)}\n[cut for the client: ${utf8Bytes(text) - CONTENT_TEXT_CAP_BYTES} more bytes not shown]`);
  }
  if (block.type === "diff") {
    const bytes = utf8Bytes(block.oldText ?? "") + utf8Bytes(block.newText);
    if (bytes > DIFF_CAP_BYTES) return note(`[diff of ${cutWithEllipsis(block.path, LOCATION_PATH_BYTES)} not shown: ${bytes} bytes of old and new text, over the ${DIFF_CAP_BYTES}-byte diff limit]`);
    if (!fits(block.path, LOCATION_PATH_BYTES)) return { ...block, path: cutWithEllipsis(block.path, LOCATION_PATH_BYTES) };
  }
  return block;
}

/** Tool-call content as sent to the client: each block bounded, and the blocks past CONTENT_TOTAL_BYTES replaced by a note. */
export function boundContent(blocks: readonly acp.ToolCallContent[]): acp.ToolCallContent[] {
  const bounded: acp.ToolCallContent[] = [];
  let total = 0;
  for (const [index, block] of blocks.entries()) {
    const kept = boundBlock(block);
    total += utf8Bytes(JSON.stringify(kept));
    if (total > CONTENT_TOTAL_BYTES) {
      bounded.push(note(`[${blocks.length - index} more content blocks not shown: over the ${CONTENT_TOTAL_BYTES}-byte limit of one update]`));
      break;
    }
    bounded.push(kept);
  }
  return bounded;
}

/** `text` in pieces of at most MESSAGE_CHUNK_BYTES (one piece when it fits; never splits a character). */
export function messageChunks(text: string): string[] {
  if (fits(text, MESSAGE_CHUNK_BYTES)) return [text];
  const pieces: string[] = [];
  const buffer = new Uint8Array(MESSAGE_CHUNK_BYTES);
  for (let start = 0; start < text.length; ) {
    const units = prefixUnits(text, start, buffer);
    pieces.push(text.slice(start, start + units));
    start += units;
  }
  return pieces;
}
