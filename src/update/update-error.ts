/**
 * Why an update step failed, as a `DaemonError` (its code says which; the CLI prints the message):
 *   502 `release_unreachable`   the release location did not answer, or not with the file
 *   502 `release_too_large`     a file past its byte bound
 *   502 `release_unverified`    signature, checksum or contents refused (nothing is staged)
 *   501 `release_unavailable`   no build for this platform
 *   501 `update_unsupported`    the daemon does not run from a compiled binary (it cannot restart into one)
 *   409 `update_not_staged`     restart without a verified staged update
 *   409 `update_in_progress`    another prepare or restart is running
 *   409 `update_downgrade`      the newest release is older than the running build (allowDowngrade stages it)
 *   500 `update_not_writable`   the binary's folder cannot take the new build (nothing changed)
 *   500 `update_restart_failed` the new build did not come up; the old binary is back and serving
 */
import { DaemonError } from "../errors/daemon-error.ts";

const STATUS = {
  release_unreachable: 502,
  release_too_large: 502,
  release_unverified: 502,
  release_unavailable: 501,
  update_unsupported: 501,
  update_not_staged: 409,
  update_in_progress: 409,
  update_downgrade: 409,
  update_not_writable: 500,
  update_restart_failed: 500,
} as const;

export type UpdateErrorCode = keyof typeof STATUS;

export class UpdateError extends DaemonError {
  override readonly name = "UpdateError";
  constructor(
    override readonly code: UpdateErrorCode,
    message: string,
    fields: Record<string, unknown> = {},
  ) {
    super(STATUS[code], code, message, fields);
  }
}
