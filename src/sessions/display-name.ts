/**
 * Session display names (pure): what a client may set (`PATCH /session/:id/metadata`) and what an
 * agent's title becomes. A name is shown in UIs and logs, so it holds no control characters (C0,
 * DEL, C1), no line or paragraph separators and no bidirectional formatting characters (which can
 * make a name read differently from what it is), and it is well-formed UTF-16. It is capped at
 * MAX_DISPLAY_NAME UTF-16 units, cut on a character boundary (never inside a surrogate pair).
 */

/** `displayName` length cap in UTF-16 units; longer names are truncated. */
export const MAX_DISPLAY_NAME = 256;

/** C0, DEL and C1 controls, line/paragraph separators, and bidi marks, embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "g");

/** The first `max` UTF-16 units of `text`, one shorter when the cut would split a surrogate pair. */
export function truncateUtf16(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

export type NameProblem = "empty" | "unsafe_characters" | "malformed";

/** A client's name, trimmed and capped, or why it is refused. */
export function checkDisplayName(raw: string): { name: string } | { problem: NameProblem } {
  if (!raw.isWellFormed()) return { problem: "malformed" };
  if (UNSAFE.test(raw)) return { problem: "unsafe_characters" };
  const name = raw.trim();
  if (name === "") return { problem: "empty" };
  return { name: truncateUtf16(name, MAX_DISPLAY_NAME) };
}

/** An agent's title made safe to show: unsafe characters removed, lone surrogates replaced, capped. */
export function titleFromAgent(raw: string): string {
  return truncateUtf16(raw.toWellFormed().replace(UNSAFE_ALL, "").trim(), MAX_DISPLAY_NAME);
}
