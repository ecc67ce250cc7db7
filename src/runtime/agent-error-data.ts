/**
 * What the daemon passes on of an agent's error answer (its `data`, known secrets already
 * replaced), bounded in bytes, since an agent may put anything there (a 12 MB `details` would
 * otherwise become a 12 MB `turn_error` frame, journaled and sent to every subscriber):
 * - an HTTP error body forwards `data` as the agent sent it while its JSON is at most
 *   MAX_AGENT_ERROR_DATA_BYTES; larger data is replaced by a note of its size
 *   (`{truncated: true, totalBytes}`);
 * - a failed prompt's `turn_error` takes the agent's `details` (its account of the failure) cut to
 *   MAX_AGENT_ERROR_DETAILS_BYTES with `…`, and its `errorKind` when that is a string of at most
 *   MAX_ERROR_KIND_BYTES (the prompt queue keeps only the kinds it knows).
 * Pure.
 */
import { truncateToBytes } from "../workspace/text-codec.ts";

export const MAX_AGENT_ERROR_DATA_BYTES = 16 * 1024;
export const MAX_AGENT_ERROR_DETAILS_BYTES = 4096;
const MAX_ERROR_KIND_BYTES = 64;
const ELLIPSIS = "…";

/** What a turn ending in this error says of it. */
export interface AgentErrorFacts {
  readonly details?: string;
  readonly errorKind?: string;
}

/** `text` cut to `maxBytes` of UTF-8 (the `…` included) when it is longer. */
function cutWithEllipsis(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  return `${truncateToBytes(text, "utf-8", maxBytes - Buffer.byteLength(ELLIPSIS))}${ELLIPSIS}`;
}

/** `data` as an HTTP error body forwards it (see the header). */
export function forwardedData(data: unknown): unknown {
  if (data === undefined) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(data) ?? "");
  return bytes <= MAX_AGENT_ERROR_DATA_BYTES ? data : { truncated: true, totalBytes: bytes };
}

/** The `details` and `errorKind` of `data`, bounded (see the header). */
export function errorFacts(data: unknown): AgentErrorFacts {
  if (data === null || typeof data !== "object") return {};
  const { details, errorKind } = data as Record<string, unknown>;
  return {
    ...(typeof details === "string" ? { details: cutWithEllipsis(details, MAX_AGENT_ERROR_DETAILS_BYTES) } : {}),
    ...(typeof errorKind === "string" && Buffer.byteLength(errorKind) <= MAX_ERROR_KIND_BYTES ? { errorKind } : {}),
  };
}
