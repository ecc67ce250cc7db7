/**
 * Typed errors thrown by services and mapped to HTTP in one place (`server/error-response.ts`).
 * Errors carry data, not prose to parse: `code`, `status`, extra body fields and an optional
 * `retryAfter` (seconds) that becomes a `Retry-After` header.
 */
export type ErrorFields = Record<string, unknown>;

export class DaemonError extends Error {
  override readonly name: string = "DaemonError";
  constructor(
    readonly status: number,
    /** Stable machine code; null for the few bodies that carry `error` only. */
    readonly code: string | null,
    message: string,
    readonly fields: ErrorFields = {},
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  /** The JSON body: `{error, code?, ...fields}`. */
  body(): Record<string, unknown> {
    return this.code === null ? { error: this.message, ...this.fields } : { error: this.message, code: this.code, ...this.fields };
  }
}

/** Filesystem errors use their own body shape: `{errorKind, error, hint?, status}`. */
export class FsError extends DaemonError {
  override readonly name = "FsError";
  constructor(
    status: number,
    readonly errorKind: string,
    message: string,
    readonly hint?: string,
    retryAfter?: number,
  ) {
    super(status, null, message, {}, retryAfter);
  }

  override body(): Record<string, unknown> {
    return this.hint === undefined
      ? { errorKind: this.errorKind, error: this.message, status: this.status }
      : { errorKind: this.errorKind, error: this.message, hint: this.hint, status: this.status };
  }
}

export const badRequest = (message: string, code: string | null = null, fields?: ErrorFields) =>
  new DaemonError(400, code, message, fields);

export const notFound = (message: string, code: string | null = null, fields?: ErrorFields) =>
  new DaemonError(404, code, message, fields);
