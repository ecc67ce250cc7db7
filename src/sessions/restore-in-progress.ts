/**
 * The 409 `restore_in_progress` answer: a session is being restored (`load`/`resume`), so a
 * conflicting request (the other restore action, a close, an archive or delete of it) is refused
 * with `Retry-After` instead of racing it. A restore is bounded by `--session-restore-timeout-ms`,
 * so the retry finds it settled.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const RESTORE_RETRY_AFTER_SECONDS = 5;

export function restoreInProgress(message: string, fields: Record<string, unknown>): DaemonError {
  return new DaemonError(409, "restore_in_progress", message, { ...fields, reason: "restore_in_progress", retryable: true }, RESTORE_RETRY_AFTER_SECONDS);
}
