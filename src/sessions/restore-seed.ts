/**
 * The context a seeded restore gives a fresh agent session: the conversation so far, read from the
 * session's journal (user prompts and agent text only), newest kept and oldest dropped first to fit
 * SEED_MAX_BYTES. It travels as one text block ahead of the first prompt's content (see
 * `LiveSession.agentPrompt`): text is the one content type every ACP agent accepts, the agent
 * reads it together with the user's next message instead of in a turn of its own that nobody
 * asked for, and it is never published (clients have the journal already).
 *
 * Every line of the summary starts with a role label ("User: ", "Agent: ", or "| " for a
 * message's further lines), so text quoted from the history cannot pass for a line of the user's
 * new message. A "line" ends at any line break a reader may honour (LINE_BREAKS), not only "\n".
 * "User:" lines come only from the daemon's own echo of a client's prompt (`_meta.source:
 * "bridge-echo"`): a `user_message_chunk` the agent emitted itself is left out, so an agent cannot
 * put words in the user's mouth.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Store } from "../store/store.ts";
import { transcriptEntries } from "./transcript-entries.ts";

/** Most UTF-8 bytes of transcript in a seed; older messages are dropped first, then the oldest kept one is cut from its start. */
export const SEED_MAX_BYTES = 16 * 1024;
/** How much of each journal a seed reads: the newest events (before its cut) only, at most this many and this many bytes (the header says when older ones went unread). */
const SEED_SCAN_EVENTS = 5000;
const SEED_SCAN_BYTES = 4 * 1024 * 1024;

const HEADER = "[Context from svc: this conversation was restored into a new agent session, so your earlier context is gone. The conversation so far, oldest first";
const FOOTER = "[End of the restored conversation. The user's new message follows.]";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/** Every line break class: CRLF, LF, CR, VT, FF, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. */
const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

function render(kind: "user" | "agent", text: string): string {
  const [first, ...rest] = text.split(LINE_BREAKS);
  return [`${kind === "user" ? "User" : "Agent"}: ${first}`, ...rest.map((line) => `| ${line}`)].join("\n");
}

/** A `user_message_chunk` the daemon did not echo from a client's prompt (the agent sent it). */
function agentEmittedUserChunk(envelope: unknown): boolean {
  const update = (envelope as { type?: unknown; data?: { update?: { sessionUpdate?: unknown; _meta?: { source?: unknown } } } } | null)?.data?.update;
  return (envelope as { type?: unknown }).type === "session_update" && update?.sessionUpdate === "user_message_chunk" && update._meta?.source !== "bridge-echo";
}

/** The last `max` bytes of `text` at most, on a character boundary. */
function tail(text: string, max: number): string {
  let out = "";
  let size = 0;
  const chars = [...text];
  for (let i = chars.length - 1; i >= 0; i--) {
    const n = bytes(chars[i]!);
    if (size + n > max) break;
    size += n;
    out = chars[i]! + out;
  }
  return out;
}

/** One journal a seed reads: a session's, up to the position `before` (a branch's cut) or whole. */
export interface SeedSource {
  readonly sessionId: string;
  readonly before: number | null;
}

/** A source's messages, rendered, and how many of its events went unread (older than the scan's bounds). */
function messagesOf(store: Pick<Store, "recent"> | null, source: SeedSource): { messages: string[]; omitted: number } {
  const { records, omitted } = store?.recent(source.sessionId, SEED_SCAN_EVENTS, SEED_SCAN_BYTES, source.before) ?? { records: [], omitted: 0 };
  const envelopes = records.map((r) => JSON.parse(r.envelope) as unknown).filter((e) => !agentEmittedUserChunk(e));
  const messages = transcriptEntries(envelopes).flatMap((e) => ((e.kind === "user" || e.kind === "agent") && e.text.trim() !== "" ? [render(e.kind, e.text)] : []));
  return { messages, omitted };
}

/**
 * The seed for `sessionId`, or null when its journal (and its `ancestors'`, read first: a branch's,
 * `branch-ancestry.ts`) holds no conversation. With `before` (a journal position: a branch's cut),
 * only the events before it count. Each journal is read from its newest events (before its cut)
 * back, within the scan's bounds.
 */
export function restoreSeed(store: Pick<Store, "recent"> | null, sessionId: string, before: number | null = null, ancestors: readonly SeedSource[] = []): acp.ContentBlock | null {
  const read = [...ancestors, { sessionId, before }].map((source) => messagesOf(store, source));
  const messages = read.flatMap((r) => r.messages);
  const omitted = read.reduce((n, r) => n + r.omitted, 0);
  if (messages.length === 0) return null;
  const kept: string[] = [];
  let size = 0;
  let cut = false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const n = bytes(messages[i]!) + 1;
    if (size + n <= SEED_MAX_BYTES) {
      kept.unshift(messages[i]!);
      size += n;
      continue;
    }
    // The oldest message that fits only in part keeps its end, marked as cut.
    const room = SEED_MAX_BYTES - size - bytes("| …\n") - 1;
    if (room > 0) kept.unshift(`| …${tail(messages[i]!, room)}`);
    cut = true;
    break;
  }
  const header = `${HEADER}${cut || omitted > 0 ? "; older messages were left out" : ""}:]`;
  return { type: "text", text: [header, ...kept, FOOTER].join("\n") };
}
