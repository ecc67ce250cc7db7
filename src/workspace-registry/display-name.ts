/**
 * A workspace's display name as the registration routes take it: a string, trimmed, at most
 * MAX_DISPLAY_NAME_LENGTH characters, no control characters; an empty one means none. Anything
 * else is 400 `invalid_display_name`.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const MAX_DISPLAY_NAME_LENGTH = 256;

const invalid = (message: string) => new DaemonError(400, "invalid_display_name", message);

/** The name to keep (null: none), or 400 `invalid_display_name`. */
export function normalizeDisplayName(value: unknown): string | null {
  if (typeof value !== "string") throw invalid("Workspace display name must be a string");
  const trimmed = value.trim();
  if (trimmed.length > MAX_DISPLAY_NAME_LENGTH) throw invalid(`Workspace display name exceeds ${MAX_DISPLAY_NAME_LENGTH} characters`);
  // C0 controls and DEL.
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw invalid("Workspace display name contains control characters");
  return trimmed === "" ? null : trimmed;
}
