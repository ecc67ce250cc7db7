/** A failed daemon call, carrying what the daemon's error body said. */
import type { ErrorBody } from "./types.ts";

export class DaemonApiError extends Error {
  override readonly name = "DaemonApiError";
  readonly status: number;
  /** The stable machine code (`code`, else the filesystem `errorKind`), when the body had one. */
  readonly code: string | undefined;
  readonly retryable: boolean;
  readonly hint: string | undefined;
  /** Seconds from a `Retry-After` header, when the daemon sent one. */
  readonly retryAfter: number | undefined;
  /** The whole error body (additive: callers may read members this class does not lift). */
  readonly body: ErrorBody | undefined;

  constructor(status: number, body: ErrorBody | undefined, retryAfter?: number) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    const code = body?.code ?? body?.errorKind;
    this.code = code === undefined ? undefined : String(code);
    this.retryable = body?.retryable ?? (status === 503 || status === 429);
    this.hint = body?.hint;
    this.retryAfter = retryAfter;
    this.body = body;
  }

  /** The daemon wants a bearer token (none was sent, or the one sent is wrong). */
  get isAuthError(): boolean {
    return this.status === 401;
  }
}

/** Builds the error for a non-2xx response; a body that is not a JSON object keeps its status only. */
export async function errorFromResponse(res: Response): Promise<DaemonApiError> {
  let body: ErrorBody | undefined;
  try {
    const parsed: unknown = await res.json();
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as ErrorBody;
  } catch {
    body = undefined;
  }
  const header = res.headers.get("retry-after");
  const seconds = header === null ? NaN : Number(header);
  return new DaemonApiError(res.status, body, Number.isFinite(seconds) ? seconds : undefined);
}
