/**
 * A session's source: where it came from, as its creator names it on `POST /session`
 * (`sourceType`, and optionally `sourceId` within that type), kept in the catalog and filtered on
 * by the session lists. The rules are the reference daemon's (0.24.4): a type is
 * `[a-z][a-z0-9_-]{0,63}`, an id is 1 to 256 characters (UTF-16 code units) with no C0 control
 * character, no DEL and no lone surrogate (the catalog could not keep it as sent), an id needs a type, and the sources the reference keeps for its own
 * sessions (`standalone`; `default` with a `realtime_voice:` id) are refused.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const SOURCE_TYPE_PATTERN = "^[a-z][a-z0-9_-]{0,63}$";
export const MAX_SOURCE_ID_LENGTH = 256;

export interface SessionSource {
  readonly sourceType: string;
  readonly sourceId?: string;
}

export const SOURCE_TYPE_RULE = "`sourceType` must match [a-z][a-z0-9_-]{0,63} when provided";
export const SOURCE_ID_RULE = `\`sourceId\` must be a non-empty string of at most ${MAX_SOURCE_ID_LENGTH} characters without control characters`;

const TYPE = new RegExp(SOURCE_TYPE_PATTERN);
const CONTROL = /[\u0000-\u001f\u007f]/;

export const invalidSource = (message: string) => new DaemonError(400, "invalid_session_source", message);

/**
 * The source named by `sourceType`/`sourceId` (either may be absent), or null when neither is;
 * 400 `invalid_session_source` when they break the rules. `reserved` also refuses the reference's
 * own sources with 400 `reserved_session_source` (a creation; a list may filter on them).
 */
export function parseSessionSource(sourceType: unknown, sourceId: unknown, reserved: boolean): SessionSource | null {
  if (sourceType === undefined && sourceId === undefined) return null;
  if (reserved && sourceType === "standalone")
    throw new DaemonError(400, "reserved_session_source", "The requested session source is reserved for daemon-owned standalone sessions.");
  if (typeof sourceType !== "string" || !TYPE.test(sourceType)) throw invalidSource(SOURCE_TYPE_RULE);
  if (sourceId === undefined) return { sourceType };
  if (typeof sourceId !== "string" || sourceId.length === 0 || sourceId.length > MAX_SOURCE_ID_LENGTH || CONTROL.test(sourceId) || !sourceId.isWellFormed()) throw invalidSource(SOURCE_ID_RULE);
  if (reserved && sourceType === "default" && sourceId.startsWith("realtime_voice:"))
    throw new DaemonError(400, "reserved_session_source", "The requested session source is reserved for daemon-owned Live Voice sessions.");
  return { sourceType, sourceId };
}

/** The source's members for an answer: none when there is no source. */
export const sourceFields = (source: SessionSource | null): { sourceType?: string; sourceId?: string } =>
  source === null ? {} : { sourceType: source.sourceType, ...(source.sourceId === undefined ? {} : { sourceId: source.sourceId }) };
