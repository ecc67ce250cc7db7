/**
 * A fetch that bounds in bytes what it reads, for the built-in agent's HTTP clients (the model
 * providers, streamable-HTTP MCP servers). What they read is untrusted, and the SDKs reading it (the
 * AI SDK's event-stream parser, the MCP SDK's) hold a line, an event or a whole body before they
 * parse it. The bounds, and what happens past each:
 *
 * - `eventBytes`: one unit of parse of a 2xx body. For an event stream (`text/event-stream`) that
 *   is one event: its lines up to the blank line that ends it (so one line too); for any other
 *   type, the whole body. Past it the body fails with ResponseOverflow and the connection closes;
 * - `responseBytes`: a whole 2xx body, however it is cut into events (an endless stream of events
 *   that carry nothing still ends). Past it: the same;
 * - `errorBodyBytes`: a non-2xx body is read up to this many bytes, kept for the error message,
 *   and the rest is never read (the connection closes).
 *
 * `onBytes` hears each chunk of a 2xx body as it arrives (the model's stall timer counts bytes, not
 * parsed parts); `onOverflow` hears a ResponseOverflow just before the body fails with it. The
 * SDKs wrap the error a body fails with: `overflowIn` finds it in the cause chain.
 */

/** The bounds of one bounded fetch (see the header); Infinity means none. */
export interface FetchBounds {
  readonly eventBytes: number;
  readonly responseBytes: number;
  readonly errorBodyBytes: number;
}

export interface FetchHooks {
  readonly onBytes?: (bytes: number) => void;
  readonly onOverflow?: (overflow: ResponseOverflow) => void;
}

/** A function with the signature of `fetch` (the SDKs take it as their `fetch` option). */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A 2xx body passed a bound; `limit` names it ("26214400 bytes in one event of the response stream"). */
export class ResponseOverflow extends Error {
  override readonly name = "ResponseOverflow";
  constructor(readonly limit: string) {
    super(`the response passed the limit of ${limit}; it was not read further`);
  }
}

/** The ResponseOverflow `err` is, or was caused by, if any. */
export function overflowIn(err: unknown): ResponseOverflow | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) if (e instanceof ResponseOverflow) return e;
  return null;
}

const LF = 10;
const CR = 13;

/** Counts the bytes of the event in progress of an event stream: an event ends at a blank line (LF, CR or CRLF line ends). */
class EventMeter {
  private bytes = 0;
  private lineEmpty = true;
  private afterCR = false;

  constructor(
    private readonly max: number,
    /** False for a body that is not an event stream: all of it is one unit. */
    private readonly splits: boolean,
  ) {}

  /** Takes a chunk; false once the event in progress is over the bound. One pass over the bytes (about 500 MB/s). */
  add(chunk: Uint8Array): boolean {
    if (!this.splits) return (this.bytes += chunk.length) <= this.max;
    let { bytes, lineEmpty, afterCR } = this;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === LF && afterCR) {
        afterCR = false; // the LF of a CRLF: the line already ended
        continue;
      }
      afterCR = byte === CR;
      if (byte === LF || byte === CR) {
        if (lineEmpty) {
          bytes = 0; // a blank line: the event ended
          continue;
        }
        lineEmpty = true;
      } else lineEmpty = false;
      if (++bytes > this.max) return false;
    }
    this.bytes = bytes;
    this.lineEmpty = lineEmpty;
    this.afterCR = afterCR;
    return true;
  }
}

/** Whether a Content-Type header names an event stream. */
const isEventStream = (contentType: string | null) => contentType?.split(";")[0]?.trim().toLowerCase() === "text/event-stream";

/** `body` read through the bounds: chunks pass on as they come, until one passes a bound. */
function boundedBody(body: ReadableStream<Uint8Array>, bounds: FetchBounds, eventStream: boolean, hooks: FetchHooks): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const events = new EventMeter(bounds.eventBytes, eventStream);
  let total = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (err) {
          controller.error(err);
          return;
        }
        if (next.done) return controller.close();
        const chunk = next.value;
        hooks.onBytes?.(chunk.length);
        total += chunk.length;
        const overflow =
          total > bounds.responseBytes
            ? new ResponseOverflow(`${bounds.responseBytes} bytes in one response`)
            : !events.add(chunk)
              ? new ResponseOverflow(eventStream ? `${bounds.eventBytes} bytes in one event of the response stream` : `${bounds.eventBytes} bytes in one response body`)
              : null;
        if (overflow === null) return controller.enqueue(chunk);
        hooks.onOverflow?.(overflow);
        controller.error(overflow);
        void reader.cancel(overflow).catch(() => {});
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** Statuses whose response has no body (a Response cannot be built with one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** `response` with `body` instead of its own (status, headers and url kept). */
function withBody(response: Response, body: BodyInit, headers: Headers = response.headers): Response {
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers });
  Object.defineProperty(copy, "url", { value: response.url });
  return copy;
}

/** A non-2xx response with its body's first `max` bytes; the rest is never read. */
async function cutErrorBody(response: Response, max: number): Promise<Response> {
  const reader = response.body!.getReader();
  const kept: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < max) {
      const next = await reader.read();
      if (next.done) break;
      const part = next.value.subarray(0, max - bytes);
      kept.push(part);
      bytes += part.length;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return withBody(response, Buffer.concat(kept), headers);
}

/** `base` (the global fetch unless given) with the bounds of the header applied to every response. */
export function boundedFetch(bounds: FetchBounds, hooks: FetchHooks = {}, base: FetchFn = fetch): FetchFn {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
    if (!response.ok) return await cutErrorBody(response, bounds.errorBodyBytes);
    return withBody(response, boundedBody(response.body, bounds, isEventStream(response.headers.get("content-type")), hooks));
  };
}
