/**
 * A journal read as a conversation (pure): consecutive message chunks of one kind and prompt are
 * joined into one entry; tool calls, permission questions, turn ends and session ends become
 * entries of their own; everything else (mode changes, command lists, bookkeeping) is left out.
 * What the entries say comes from agents and clients: renderers must escape it.
 */
import { RECORDING_GAP_TYPE } from "../store/journal-gap.ts";
import { isNestedUpdate } from "./nested-update.ts";

export type EntryKind = "user" | "agent" | "thought" | "tool" | "permission" | "turn_end" | "error" | "session_end" | "notice";

export interface TranscriptEntry {
  kind: EntryKind;
  text: string;
  /** Epoch ms of the entry's first event. */
  at: number;
  promptId?: string;
  /** The entry goes on from the last entry of the previous call (`transcriptEntries`' `previous`). */
  continues?: true;
}

interface Envelope {
  type?: unknown;
  data?: unknown;
  promptId?: unknown;
  _meta?: { serverTimestamp?: unknown };
}

const MESSAGE_KINDS: Record<string, EntryKind> = { user_message_chunk: "user", agent_message_chunk: "agent", agent_thought_chunk: "thought" };

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const obj = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** A `recording_gap` marker's notice: how many events the journal lacks here, and which. */
/** What a `permission_request_refused` says of the request. */
function refusedText(data: Record<string, unknown>): string {
  return data.reason === "too_many_options"
    ? `The agent asked for permission with ${Number(data.options)} options (at most ${Number(data.limit)} are accepted)`
    : `The agent asked for permission with an option id of ${Number(data.bytes)} bytes (at most ${Number(data.limit)} are accepted)`;
}

function gapText(data: Record<string, unknown>): string {
  const n = typeof data.notRecorded === "number" ? data.notRecorded : "Some";
  const ids = typeof data.firstEventId === "number" && typeof data.lastEventId === "number" ? ` between id ${data.firstEventId} and ${data.lastEventId}` : "";
  return `${n} event${n === 1 ? "" : "s"} not recorded${ids} (the database was locked by another process); recording resumed here`;
}

/** The readable text of an ACP content block. */
export function contentText(block: unknown): string {
  const b = obj(block);
  switch (b.type) {
    case "text":
      return str(b.text) ?? "";
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
    case "resource_link":
      return `[${str(b.name) ?? str(b.uri) ?? "resource"}]`;
    case "resource":
      return `[${str(obj(b.resource).uri) ?? "resource"}]`;
    default:
      return "";
  }
}

/**
 * The entries of `envelopes`. A journal read in pages passes the last entry of the page before as
 * `previous`: a message that goes on from it comes first, marked `continues`, so a renderer can
 * extend that entry rather than start a new one.
 */
export function transcriptEntries(envelopes: readonly unknown[], previous?: TranscriptEntry): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const raw of envelopes) {
    const envelope = obj(raw) as Envelope;
    const data = obj(envelope.data);
    const at = typeof envelope._meta?.serverTimestamp === "number" ? envelope._meta.serverTimestamp : 0;
    const promptId = str(envelope.promptId);
    const push = (kind: EntryKind, text: string) => out.push({ kind, text, at, ...(promptId ? { promptId } : {}) });
    switch (envelope.type) {
      case "session_update": {
        const update = obj(data.update);
        // A subagent's messages are not the agent's own (nested-update.ts).
        const kind = isNestedUpdate(update) ? undefined : MESSAGE_KINDS[str(update.sessionUpdate) ?? ""];
        if (kind !== undefined) {
          const text = contentText(update.content);
          const last = out[out.length - 1];
          if (last && last.kind === kind && last.promptId === promptId) last.text += text;
          else if (!last && previous?.kind === kind && previous.promptId === promptId) out.push({ kind, text, at, ...(promptId ? { promptId } : {}), continues: true });
          else push(kind, text);
        } else if (update.sessionUpdate === "tool_call") push("tool", `${str(update.title) ?? "tool call"}${str(update.status) ? ` (${str(update.status)})` : ""}`);
        break;
      }
      case "permission_request":
        push("permission", `Permission asked: ${str(obj(data.toolCall).title) ?? "a tool call"}`);
        break;
      case "turn_complete":
        push("turn_end", `Turn ended: ${str(data.stopReason) ?? "unknown"}`);
        break;
      case "turn_error":
        push("error", `Turn failed: ${str(data.message) ?? "unknown error"}${str(data.code) ? ` (${str(data.code)})` : ""}`);
        break;
      case "session_closed":
      case "session_died":
        push("session_end", `Session ${envelope.type === "session_closed" ? "closed" : "ended"}: ${str(data.reason) ?? "unknown"}`);
        break;
      case "session_recording_degraded": {
        const first = typeof data.firstUnrecordedEventId === "number" ? ` from id ${data.firstUnrecordedEventId} on` : "";
        push("notice", `Recording stopped here: later events${first} were not saved`);
        break;
      }
      case "agent_output_rejected":
        push("notice", `The agent wrote a message of ${Number(data.bytes)} bytes, over the daemon's ${Number(data.limit)}-byte line limit; it was dropped`);
        break;
      case "permission_request_refused":
        push("notice", `${refusedText(data)}; the daemon refused it without asking`);
        break;
      case RECORDING_GAP_TYPE:
        push("notice", gapText(data));
        break;
    }
  }
  return out;
}
