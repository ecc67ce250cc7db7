/**
 * A session's turn index (`GET /session/:id/turn-index`), in the reference daemon's shape, from the
 * daemon's journal (so for every agent, live or not): one entry per prompt, in order, with its
 * ordinal, `turnId` (its prompt id), `kind: "prompt"`, timestamp, `label` (the prompt's text, first
 * line, cut to LABEL_CHARS) and `detail` (the end of the agent's answer, cut to DETAIL_CHARS).
 *
 * A page holds `limit` turns (default the newest ones, like the reference); `snapshot` (returned by
 * every page) pins the journal as it was, so `start` pages through one stable index while the
 * session goes on. The journal is scanned up to MAX_SCAN_BYTES of envelopes; a longer one answers
 * 413 `transcript_too_large`.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { Store } from "../store/store.ts";
import { truncateUtf16 } from "./display-name.ts";
import { decodeCursor, encodeCursor } from "./history-cursor.ts";
import { contentText } from "./transcript-entries.ts";
import { isNestedUpdate } from "./nested-update.ts";

export const DEFAULT_TURN_LIMIT = 100;
export const MAX_TURN_LIMIT = 500;
export const MAX_SCAN_BYTES = 64 * 1024 * 1024;
const LABEL_CHARS = 200;
const DETAIL_CHARS = 500;
const PAGE_RECORDS = 1000;
const PAGE_BYTES = 1024 * 1024;

export interface TurnEntry {
  ordinal: number;
  turnId: string;
  kind: "prompt";
  promptId: string;
  timestamp?: string;
  label: string;
  detail?: string;
}

interface Scanned {
  promptId: string;
  /** The journal position of the turn's first message chunk (its prompt's echo). */
  position: number;
  at: number;
  label: string;
  detail: string;
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The turns of the journal up to `upTo` (a record position; null: all of it now), and the last position read. */
function scan(store: Store, sessionId: string, upTo: number | null): { turns: Scanned[]; last: number; startedAt: number | null; endedAt: number | null } {
  const byPrompt = new Map<string, Scanned>();
  const turns: Scanned[] = [];
  let after = 0;
  let bytes = 0;
  let startedAt: number | null = null;
  let endedAt: number | null = null;
  for (;;) {
    const page = store.journalPage(sessionId, after, PAGE_RECORDS, PAGE_BYTES);
    for (const record of page.records) {
      if (upTo !== null && record.position > upTo) return { turns, last: after, startedAt, endedAt };
      after = record.position;
      bytes += record.envelope.length;
      if (bytes > MAX_SCAN_BYTES)
        throw new DaemonError(413, "transcript_too_large", "The session is too long to index; page its transcript instead", { sessionId, maxBytes: MAX_SCAN_BYTES });
      const envelope = obj(JSON.parse(record.envelope));
      const at = typeof obj(envelope._meta).serverTimestamp === "number" ? (obj(envelope._meta).serverTimestamp as number) : 0;
      if (at > 0) {
        startedAt ??= at;
        endedAt = at;
      }
      const promptId = typeof envelope.promptId === "string" ? envelope.promptId : null;
      if (envelope.type !== "session_update" || promptId === null) continue;
      const update = obj(obj(envelope.data).update);
      const kind = update.sessionUpdate;
      if ((kind !== "user_message_chunk" && kind !== "agent_message_chunk") || isNestedUpdate(update)) continue;
      let turn = byPrompt.get(promptId);
      if (!turn) {
        turn = { promptId, position: record.position, at, label: "", detail: "" };
        byPrompt.set(promptId, turn);
        turns.push(turn);
      }
      const text = contentText(update.content);
      if (kind === "user_message_chunk") {
        if (turn.label.length < LABEL_CHARS * 2) turn.label += text;
      } else turn.detail = (turn.detail + text).slice(-DETAIL_CHARS * 2);
    }
    if (!page.hasMore || page.records.length === 0) return { turns, last: after, startedAt, endedAt };
  }
}

/** The session's turns in order, each with the journal position its prompt's echo starts at (413 past MAX_SCAN_BYTES). */
export function turnStarts(store: Store, sessionId: string): { promptId: string; position: number }[] {
  return scan(store, sessionId, null).turns.map(({ promptId, position }) => ({ promptId, position }));
}

const cut = (text: string, max: number, fromEnd = false) => {
  const line = oneLine(text);
  if (line.length <= max) return line;
  return fromEnd ? `…${line.slice(line.length - max + 1)}` : `${truncateUtf16(line, max - 1)}…`;
};

export function turnIndex(store: Store | null, sessionId: string, query: { limit?: number; start?: number; snapshot?: string }) {
  const scope = `turn-index:${sessionId}`;
  if (query.start !== undefined && query.snapshot === undefined) throw new DaemonError(400, "invalid_transcript_cursor", "`start` requires `snapshot`");
  const pinned = query.snapshot === undefined ? null : decodeCursor<{ upTo: number }>(query.snapshot, scope, { upTo: "number" }, "invalid_transcript_cursor").upTo;
  const limit = query.limit ?? DEFAULT_TURN_LIMIT;
  const { turns, last, startedAt, endedAt } = store === null ? { turns: [], last: 0, startedAt: null, endedAt: null } : scan(store, sessionId, pinned);
  const total = turns.length;
  const start = query.start ?? Math.max(0, total - limit);
  if (start > total) throw new DaemonError(400, "invalid_transcript_cursor", "`start` is past the last turn", { totalTurns: total });
  const now = new Date().toISOString();
  return {
    v: 1 as const,
    sessionId,
    snapshot: encodeCursor(scope, { upTo: pinned ?? last }),
    totalTurns: total,
    start,
    turns: turns.slice(start, start + limit).map(
      (t, i): TurnEntry => ({
        ordinal: start + i,
        turnId: t.promptId,
        kind: "prompt",
        promptId: t.promptId,
        ...(t.at > 0 ? { timestamp: new Date(t.at).toISOString() } : {}),
        label: t.label.trim() === "" ? "Prompt" : cut(t.label, LABEL_CHARS),
        ...(t.detail.trim() === "" ? {} : { detail: cut(t.detail, DETAIL_CHARS, true) }),
      }),
    ),
    startTime: startedAt === null ? now : new Date(startedAt).toISOString(),
    lastUpdated: endedAt === null ? now : new Date(endedAt).toISOString(),
  };
}
