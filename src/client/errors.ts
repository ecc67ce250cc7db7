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

/**
 * Bound on the error body read: the daemon's error bodies are small JSON objects; a bigger one
 * (not the daemon's, e.g. a proxy's page, or an endless stream) is cut here, its body cancelled,
 * and the error keeps its status only.
 */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The body's text if it ends within `MAX_ERROR_BODY_BYTES`; the body is cancelled either way. */
async function readCapped(res: Response): Promise<string | undefined> {
  if (!res.body) return undefined;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_ERROR_BODY_BYTES) return undefined;
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/**
 * Builds the error for a non-2xx response; a body that is not a JSON object, is over
 * `MAX_ERROR_BODY_BYTES` or fails to arrive (the request's signal aborted) keeps its status only.
 */
export async function errorFromResponse(res: Response): Promise<DaemonApiError> {
  let body: ErrorBody | undefined;
  try {
    const text = await readCapped(res);
    const parsed: unknown = text === undefined ? undefined : JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as ErrorBody;
  } catch {
    body = undefined;
  }
  const header = res.headers.get("retry-after");
  const seconds = header === null ? NaN : Number(header);
  return new DaemonApiError(res.status, body, Number.isFinite(seconds) ? seconds : undefined);
}
