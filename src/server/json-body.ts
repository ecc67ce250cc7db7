/**
 * Request body parsing. Every body any route reads comes through here, whatever its Content-Type
 * (the API takes JSON only), and obeys the same bounds (JSON_BODY_LIMITS):
 * - size: bytes are counted as they arrive, Content-Length or not; past the cap the read stops, 413;
 * - pace: the front door turns the socket's idle timer off while a handler runs, so the wait for
 *   the client's bytes is bounded here instead, twice: a body that stalls (no bytes for `idleMs`)
 *   is 408, and so is one that drips too slowly to finish by its deadline (`minTotalMs`, or longer
 *   for a big body at `minBytesPerSecond`), so a trickle of bytes cannot hold a connection slot;
 * - nesting: a byte scan refuses documents nested deeper than the cap before `JSON.parse` sees
 *   them (400), so no later recursive walk (validation, `JSON.stringify`) can overflow the stack.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export interface JsonBodyLimits {
  /** Largest body accepted; a bigger one is refused with 413 as soon as it is known to be bigger. */
  readonly maxBytes: number;
  /** Longest wait for the next bytes of a body; then the read is abandoned with 408. */
  readonly idleMs: number;
  /**
   * Every body may take this long in all; past it (and past the time `minBytesPerSecond` grants a
   * big body) the read is abandoned with 408, however steadily the bytes trickle in.
   */
  readonly minTotalMs: number;
  /**
   * Slowest average pace a big body may arrive at: a body of N bytes (Content-Length; without one,
   * `maxBytes`, since its size is unknown) has max(minTotalMs, N / minBytesPerSecond) to arrive.
   */
  readonly minBytesPerSecond: number;
  /** Deepest nesting of arrays and objects accepted (`[]` is depth 1); deeper is 400 `json_too_deep`. */
  readonly maxDepth: number;
}

/** Largest request body accepted, on every route; larger ones get 413. */
export const MAX_JSON_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Deepest JSON accepted. Real documents (prompt blocks, file edits, settings) stay under 10 levels;
 * 64 leaves room and stays far below where recursive code runs out of stack (~50k levels for
 * `JSON.stringify`).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * 30 s for any body, 64 KiB/s for big ones: a 10 MB body gets 160 s, far more than a local client
 * needs, while a client dripping bytes gives its connection slot back within that.
 */
export const JSON_BODY_LIMITS: JsonBodyLimits = {
  maxBytes: MAX_JSON_BODY_BYTES,
  idleMs: 10_000,
  minTotalMs: 30_000,
  minBytesPerSecond: 64 * 1024,
  maxDepth: MAX_JSON_DEPTH,
};

/** 413 naming the bound in force (the API's 10 MB, or a route's own, such as a webhook's). */
export const bodyTooLarge = (maxBytes: number = MAX_JSON_BODY_BYTES) =>
  new DaemonError(413, null, `Request body too large (max ${maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`})`);
export const invalidJson = () => new DaemonError(400, null, "Invalid JSON in request body");
const bodyStalled = (idleMs: number) =>
  new DaemonError(408, "request_body_timeout", `The request body stalled: no bytes for ${idleMs} ms`, { idleTimeoutMs: idleMs });
const bodyTooSlow = (deadlineMs: number) =>
  new DaemonError(408, "request_body_timeout", `The request body arrived too slowly: not complete within ${deadlineMs} ms`, { deadlineMs });
const bodyCutOff = () => new DaemonError(400, "request_body_incomplete", "The request body ended before it was complete");
const tooDeep = (maxDepth: number) =>
  new DaemonError(400, "json_too_deep", `JSON in the request body nests deeper than ${maxDepth} levels`, { maxDepth });

const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();

/** How long a body of `declared` bytes (null: unknown) may take to arrive in all. */
function bodyDeadlineMs(declared: number | null, limits: JsonBodyLimits): number {
  return Math.max(limits.minTotalMs, Math.ceil(((declared ?? limits.maxBytes) * 1000) / limits.minBytesPerSecond));
}

/** Reads the whole body, counting bytes and timing both the gaps between them and the whole read. */
async function readBounded(request: Request, limits: JsonBodyLimits): Promise<Uint8Array> {
  if (request.body === null) return EMPTY;
  const header = request.headers.get("content-length");
  const declared = header === null ? Number.NaN : Number(header);
  if (declared > limits.maxBytes) throw bodyTooLarge(limits.maxBytes);
  const reader = request.body.getReader();
  let timedOut: DaemonError | null = null;
  const abandon = (error: DaemonError) => {
    timedOut ??= error;
    reader.cancel().catch(() => {});
  };
  const timer = setTimeout(() => abandon(bodyStalled(limits.idleMs)), limits.idleMs);
  const deadlineMs = bodyDeadlineMs(Number.isFinite(declared) ? declared : null, limits);
  const deadline = setTimeout(() => abandon(bodyTooSlow(deadlineMs)), deadlineMs);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const chunk = await reader.read().catch(() => null);
      if (timedOut !== null) throw timedOut;
      if (chunk === null) throw bodyCutOff(); // the client went away mid-body
      if (chunk.done) break;
      total += chunk.value.byteLength;
      if (total > limits.maxBytes) {
        reader.cancel().catch(() => {});
        throw bodyTooLarge(limits.maxBytes);
      }
      chunks.push(chunk.value);
      timer.refresh();
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Plain string bytes scanned one by one before jumping ahead to the next quote with `indexOf`. */
const STRING_RUN_BEFORE_JUMP = 32;

/**
 * True when the JSON text in `bytes` nests arrays/objects deeper than `maxDepth`: one pass that
 * counts brackets outside strings, with no recursion and no allocation. Strings are skipped byte by
 * byte while escapes are near, and with the native `indexOf` across long plain runs, so neither
 * escape-dense source code nor long prose costs more than `JSON.parse` itself. UTF-8 continuation
 * bytes are never ASCII, so no character can be mistaken for a bracket, quote or backslash. It does
 * not validate: malformed input is left to `JSON.parse`.
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  const n = bytes.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      let plain = 0;
      for (i++; i < n; i++) {
        const d = bytes[i];
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          i++; // the escaped byte
          plain = 0;
        } else if (++plain === STRING_RUN_BEFORE_JUMP) {
          // Jump to where the next quote's run of backslashes starts (the quote itself when none):
          // no quote lies in between, so nothing in between can end the string.
          const quote = bytes.indexOf(QUOTE, i + 1);
          if (quote === -1) return false;
          let from = quote;
          while (bytes[from - 1] === BACKSLASH && from - 1 > i) from--;
          i = from - 1;
          plain = 0;
        }
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Parses a JSON body within `limits`; an empty (or all-blank) body reads as `{}`. */
export async function readJsonBody(request: Request, limits: JsonBodyLimits = JSON_BODY_LIMITS): Promise<unknown> {
  const bytes = await readBounded(request, limits);
  if (nestsDeeperThan(bytes, limits.maxDepth)) throw tooDeep(limits.maxDepth);
  const text = decoder.decode(bytes);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidJson();
  }
}
