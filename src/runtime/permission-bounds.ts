/**
 * Bounds on an agent's permission request (`session/request_permission`), in UTF-8 bytes (pure).
 * The channel applies them to the request as it arrives, before the ACP SDK holds it for as long as
 * the request is pending (`boundPermissionParams`, with the agent's budget: `permission-budget.ts`);
 * the session's broker decides refusals and applies them again to what it keeps. Each says what
 * happens past it:
 *
 * - more than MAX_PERMISSION_OPTIONS options, or an option id over MAX_OPTION_ID_BYTES: the request
 *   is refused (`permissionRefusal`). Real agents offer 2 to 6 options with short ids; cutting the
 *   list or an id would change what the user chooses from, or what a vote sends back, so the
 *   request is not put to the user at all and the agent hears why.
 * - an option's name over MAX_OPTION_NAME_BYTES: cut with `…` (a label; the id is what a vote sends).
 *   Of an option only `optionId`, `name` and `kind` are kept.
 * - a tool call whose JSON is over its limit (MAX_TOOL_CALL_BYTES, or less when the agent's budget
 *   is short): rebuilt within that limit rather than refused (a large edit is a real request, and
 *   the user can still answer it): its id, title, kind, status and first locations stay (each cut
 *   to its own bound); `rawInput` over RAW_BYTES becomes `{truncated, totalBytes, preview}` (the
 *   first bytes of its JSON) and `rawOutput` `{truncated, totalBytes}`; content blocks are kept in
 *   order while they fit, a text block cut at TEXT_BLOCK_BYTES saying how much is left out, a diff
 *   that does not fit whole replaced by a note naming its path and size (never half a diff, which
 *   would read as a deletion), and the blocks past the limit by one note. `_meta["svc.daemon.cut"]`
 *   says the call was cut: `{bytes, limit}`. Below MIN_CUT_BYTES of room, only the call's identity
 *   and a note stay.
 * - the request's other members: only `sessionId` (over SESSION_ID_BYTES it names no session and
 *   the request is refused as for an unknown one) and `_meta` within META_BYTES stay; anything else
 *   an agent adds is dropped as the request arrives.
 * - the summary a session's status keeps of a pending request (`toolCallSummary`): the call's id,
 *   title, kind and status, each at most SUMMARY_TEXT_BYTES.
 */
import { truncateToBytes } from "../workspace/text-codec.ts";

export const MAX_PERMISSION_OPTIONS = 16;
export const MAX_OPTION_ID_BYTES = 128;
export const MAX_OPTION_NAME_BYTES = 256;
/** What the permission dialog can show several times over (a diff of a file of some hundred KiB); the built-in agent's asks stay under it. */
export const MAX_TOOL_CALL_BYTES = 1024 * 1024;
/** Below this much room a tool call keeps only its identity and a note. */
export const MIN_CUT_BYTES = 16 * 1024;
const TOOL_CALL_ID_BYTES = 1024;
const TITLE_BYTES = 4096;
const ENUM_BYTES = 64;
const MAX_LOCATIONS = 32;
const LOCATION_PATH_BYTES = 1024;
const RAW_BYTES = 64 * 1024;
const TEXT_BLOCK_BYTES = 64 * 1024;
const META_BYTES = 4096;
/** The members of `session/request_permission` params (ACP); `_meta` only within META_BYTES. */
const PARAMS_KEPT = new Set(["sessionId", "options", "toolCall", "_meta"]);
const SESSION_ID_BYTES = 1024;
/** Room kept in a cut tool call's content for the closing note. */
const NOTE_RESERVE_BYTES = 512;
export const SUMMARY_TEXT_BYTES = 256;
export const CUT_MARK = "svc.daemon.cut";

export type PermissionRefusal =
  | { readonly reason: "too_many_options"; readonly options: number; readonly limit: number }
  | { readonly reason: "option_id_too_long"; readonly bytes: number; readonly limit: number };

export interface BoundedOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: string;
}

type Json = Record<string, unknown>;

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");
/** The UTF-8 length of `value`'s JSON (0 for what JSON cannot carry). */
const jsonBytes = (value: unknown) => bytesOf(JSON.stringify(value) ?? "");
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" ? value : "");

/** `value` within `maxBytes`, ending in `…` when cut. */
export function cutText(value: string, maxBytes: number): string {
  return bytesOf(value) <= maxBytes ? value : `${truncateToBytes(value, "utf-8", maxBytes - 3)}…`;
}

/** Why the request's options are refused, or null when they are within the bounds. */
export function permissionRefusal(options: readonly unknown[]): PermissionRefusal | null {
  if (options.length > MAX_PERMISSION_OPTIONS) return { reason: "too_many_options", options: options.length, limit: MAX_PERMISSION_OPTIONS };
  const longest = options.reduce<number>((max, o) => Math.max(max, bytesOf(text(isObject(o) ? o.optionId : ""))), 0);
  return longest > MAX_OPTION_ID_BYTES ? { reason: "option_id_too_long", bytes: longest, limit: MAX_OPTION_ID_BYTES } : null;
}

/** What the daemon tells the agent of a refusal. */
export function refusalMessage(refusal: PermissionRefusal): string {
  return refusal.reason === "too_many_options"
    ? `The permission request offers ${refusal.options} options; the daemon accepts at most ${refusal.limit}`
    : `A permission option id is ${refusal.bytes} bytes; the daemon accepts at most ${refusal.limit}`;
}

/** An option with only its id (as sent), its name (cut) and its kind. */
export function boundOption(option: unknown): BoundedOption {
  const o = isObject(option) ? option : {};
  return { optionId: text(o.optionId), name: cutText(text(o.name), MAX_OPTION_NAME_BYTES), kind: cutText(text(o.kind), ENUM_BYTES) };
}

/**
 * Bounds a request's params in place, as they arrive: the tool call within `toolCallLimit`, and the
 * options (unless there are too many, which is refused at once anyway). Returns the tool call's
 * JSON size as kept.
 */
export function boundPermissionParams(params: Json, toolCallLimit: number): number {
  // Only the members the request is made of stay: anything else an agent adds would be held at full size while it is pending.
  for (const key of Object.keys(params)) if (!PARAMS_KEPT.has(key)) delete params[key];
  if (typeof params.sessionId === "string" && bytesOf(params.sessionId) > SESSION_ID_BYTES) params.sessionId = ""; // no session's: refused as unknown
  if (params._meta !== undefined && jsonBytes(params._meta) > META_BYTES) delete params._meta;
  if (Array.isArray(params.options) && params.options.length <= MAX_PERMISSION_OPTIONS) params.options = params.options.map(boundOption);
  params.toolCall = boundToolCall(params.toolCall, toolCallLimit);
  return jsonBytes(params.toolCall);
}

/** The tool call as sent when its JSON is within `limit`, else rebuilt within it (see the header). */
export function boundToolCall(toolCall: unknown, limit = MAX_TOOL_CALL_BYTES): unknown {
  const total = jsonBytes(toolCall);
  if (total <= limit) return toolCall;
  if (!isObject(toolCall)) return {};
  const mark = { [CUT_MARK]: { bytes: total, limit } };
  const stub = () => ({ ...identity(toolCall, SUMMARY_TEXT_BYTES, SUMMARY_TEXT_BYTES), content: [note(`[the tool call (${total} bytes) is not shown: over the ${limit} bytes the daemon can keep for it]`)], _meta: mark });
  if (limit < MIN_CUT_BYTES) return stub();
  const cut = identity(toolCall, TOOL_CALL_ID_BYTES, TITLE_BYTES);
  if (Array.isArray(toolCall.locations)) cut.locations = toolCall.locations.slice(0, MAX_LOCATIONS).flatMap(location);
  if (toolCall.rawInput !== undefined) cut.rawInput = boundRaw(toolCall.rawInput, true);
  if (toolCall.rawOutput !== undefined) cut.rawOutput = boundRaw(toolCall.rawOutput, false);
  cut._meta = { ...(isObject(toolCall._meta) && jsonBytes(toolCall._meta) <= META_BYTES ? toolCall._meta : {}), ...mark };
  const room = limit - jsonBytes(cut) - NOTE_RESERVE_BYTES;
  cut.content = Array.isArray(toolCall.content) ? boundContent(toolCall.content, room, limit) : [];
  // Only hostile values (a flood of escaped characters) leave the rest too large.
  return jsonBytes(cut) <= limit ? cut : stub();
}

/** What a session's status keeps of a pending request's tool call: its identity, each member short. */
export function toolCallSummary(toolCall: unknown): Json {
  if (!isObject(toolCall)) return {};
  const summary = identity(toolCall, SUMMARY_TEXT_BYTES, SUMMARY_TEXT_BYTES);
  // A cut id would look like another call's: one that long is left out.
  if (typeof toolCall.toolCallId === "string" && bytesOf(toolCall.toolCallId) > SUMMARY_TEXT_BYTES) delete summary.toolCallId;
  return summary;
}

/** `toolCallId`, `title`, `kind` and `status`, when strings, each cut to its bound. */
function identity(toolCall: Json, idBytes: number, titleBytes: number): Json {
  const out: Json = {};
  const bounds: Record<string, number> = { toolCallId: idBytes, title: titleBytes, kind: ENUM_BYTES, status: ENUM_BYTES };
  for (const [key, max] of Object.entries(bounds)) if (typeof toolCall[key] === "string") out[key] = cutText(toolCall[key] as string, max);
  return out;
}

function location(value: unknown): Json[] {
  if (!isObject(value) || typeof value.path !== "string") return [];
  return [{ path: cutText(value.path, LOCATION_PATH_BYTES), ...(typeof value.line === "number" ? { line: value.line } : {}) }];
}

/** A raw input or output as sent when its JSON is within RAW_BYTES, else a marker (with a preview of an input). */
function boundRaw(value: unknown, preview: boolean): unknown {
  const json = JSON.stringify(value) ?? "";
  const totalBytes = bytesOf(json);
  if (totalBytes <= RAW_BYTES) return value;
  return preview ? { truncated: true, totalBytes, preview: truncateToBytes(json, "utf-8", RAW_BYTES) } : { truncated: true, totalBytes };
}

const note = (message: string) => ({ type: "content", content: { type: "text", text: message } });

/** One block within its own bound: a long text cut (saying how much), anything else as sent. */
function boundBlock(block: unknown): unknown {
  if (!isObject(block) || block.type !== "content" || !isObject(block.content) || block.content.type !== "text" || typeof block.content.text !== "string") return block;
  const full = block.content.text;
  const bytes = bytesOf(full);
  if (bytes <= TEXT_BLOCK_BYTES) return block;
  return note(`${truncateToBytes(full, "utf-8", TEXT_BLOCK_BYTES)}\n[cut by the daemon: ${bytes - TEXT_BLOCK_BYTES} more bytes not shown]`);
}

/** The blocks in order while they fit in `room` bytes; a diff that does not is named, and the rest replaced by one note. */
function boundContent(blocks: readonly unknown[], room: number, limit: number): unknown[] {
  const kept: unknown[] = [];
  let used = 0;
  const keep = (block: unknown, bytes: number) => {
    if (used + bytes > room) return false;
    kept.push(block);
    used += bytes;
    return true;
  };
  for (const [index, block] of blocks.entries()) {
    const candidate = boundBlock(block);
    const bytes = jsonBytes(candidate);
    if (keep(candidate, bytes)) continue;
    if (isObject(block) && block.type === "diff" && typeof block.path === "string") {
      const named = note(`[diff of ${cutText(block.path, LOCATION_PATH_BYTES)} not shown: ${bytes} bytes, over the ${limit} bytes the daemon keeps of a permission request]`);
      if (keep(named, jsonBytes(named))) continue;
    }
    kept.push(note(`[${blocks.length - index} more content blocks not shown: over the ${limit} bytes the daemon keeps of a permission request]`));
    break;
  }
  return kept;
}
