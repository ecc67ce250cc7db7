/**
 * Opaque paging cursors for the history routes: base64url JSON naming where the next page starts
 * and what it pages (a session's transcript, a workspace's list), so a cursor handed to another
 * session or route is refused rather than silently paging something else. Not a secret: a forged
 * cursor can only move within what the route would show anyway.
 */
import { DaemonError } from "../errors/daemon-error.ts";

/** Longest cursor accepted; real ones are well under it. */
const MAX_CURSOR_CHARS = 1024;

export function encodeCursor(scope: string, position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify({ ...position, scope })).toString("base64url");
}

/**
 * The position in `cursor`, or a 400 with `code` when it is not one this scope issued. `shape`
 * names each field and its type.
 */
export function decodeCursor<T extends Record<string, string | number>>(cursor: string, scope: string, shape: { [K in keyof T]: "string" | "number" }, code: string): T {
  const invalid = () => new DaemonError(400, code, "`cursor` is not a cursor this route issued", {});
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== "object" || parsed === null || (parsed as { scope?: unknown }).scope !== scope) throw invalid();
  const out: Record<string, string | number> = {};
  for (const [key, type] of Object.entries(shape) as [string, "string" | "number"][]) {
    const value = (parsed as Record<string, unknown>)[key];
    if (type === "number" ? !Number.isSafeInteger(value) || (value as number) < 0 : typeof value !== "string") throw invalid();
    out[key] = value as string | number;
  }
  return out as T;
}
