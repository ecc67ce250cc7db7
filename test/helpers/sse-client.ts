/**
 * An SSE reader over a real `fetch` response body, for tests: it parses `id:`, `event:`, `data:`,
 * `retry:` and comment lines exactly as they arrive on the wire, checks every frame's invariants
 * (one `data:` line of JSON whose `type` equals `event:` and whose `id` equals `id:`), and keeps
 * every frame in arrival order. A frame that breaks them fails the next read, `waitForEnd`, and
 * dispose. On a daemon under contract (`contract.ts`), the response and each frame's envelope are
 * also checked against the stream's declared schemas.
 *
 * Two ways to read:
 * - a cursor, for order: `next()` hands out the next unconsumed frame; `waitFor(type, predicate)`
 *   consumes frames up to the first match;
 * - a lookup, for "has it arrived": `first(type, predicate)` is the earliest matching frame ever
 *   received (or still to come), and consumes nothing; `frames` and `types()` are what came so far.
 *
 *   await using sse = await openSse(`${url}/session/${id}/events`, { headers: { "Last-Event-ID": "0" } });
 *   const done = await sse.waitFor("turn_complete", (f) => f.data.promptId === promptId);
 */

import { contractFetch, frameChecker } from "./contract.ts";

/** The JSON envelope carried on a frame's `data:` line. */
export interface Envelope {
  readonly id?: number;
  readonly v: number;
  readonly type: string;
  readonly data: any;
  readonly promptId?: string;
  readonly originatorClientId?: string;
  readonly _meta: { readonly serverTimestamp: number };
}

export interface SseFrame {
  /** The `id:` line's value (undefined on synthetic, id-less frames). */
  readonly id: number | undefined;
  readonly event: string;
  readonly envelope: Envelope;
  readonly data: any;
  /** The frame's lines as received. */
  readonly raw: string;
}

export interface SseClient extends AsyncDisposable {
  readonly status: number;
  readonly headers: Headers;
  /** `retry:` value, once seen. */
  readonly retry: number | null;
  /** Each block (the text between blank lines) in arrival order, raw: retry lines, comments, frames. */
  readonly blocks: readonly string[];
  /** Every frame received so far, in order (whether or not it was consumed). */
  readonly frames: readonly SseFrame[];
  /** True once the server ended the stream. */
  readonly ended: boolean;
  /** The event names of every frame received so far, in order. */
  types(): string[];
  /** The next unconsumed frame; null once the stream has ended and nothing is left. */
  next(timeoutMs?: number): Promise<SseFrame | null>;
  /** Consumes frames until one of `type` matches `predicate`; throws on timeout or end of stream. */
  waitFor(type: string, predicate?: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** The earliest frame of `type` matching `predicate`, received or still to come; consumes nothing. */
  first(type: string, predicate?: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** Resolves once the server has ended the stream (throws on timeout). */
  waitForEnd(timeoutMs?: number): Promise<void>;
  /** Aborts the request (the server sees the client go away). Idempotent. */
  close(): void;
}

export interface OpenOptions {
  readonly headers?: Record<string, string>;
  /** Refuse anything but a 200 event stream (default true). */
  readonly expectOk?: boolean;
}

const DEFAULT_TIMEOUT_MS = 5000;

/** Opens an event stream; with `expectOk: false` a non-200 answer is returned for inspection. */
export async function openSse(url: string, options: OpenOptions = {}): Promise<SseClient> {
  const abort = new AbortController();
  const checkFrame = await frameChecker(url);
  const response = await contractFetch(url, { headers: { Accept: "text/event-stream", ...options.headers }, signal: abort.signal });
  if ((options.expectOk ?? true) && (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/event-stream"))) {
    const body = await response.text().catch(() => "");
    abort.abort();
    throw new Error(`expected an event stream from ${url}, got ${response.status}: ${body}`);
  }

  const frames: SseFrame[] = [];
  const blocks: string[] = [];
  let consumed = 0;
  let retry: number | null = null;
  let ended = response.status !== 200 || response.body === null;
  let failure: Error | null = null;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const seen = () => frames.map((f) => f.event).join(", ");

  const dispatch = (block: string) => {
    blocks.push(block);
    let id: string | undefined;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "retry") retry = Number(value);
      else throw new Error(`unexpected SSE field ${JSON.stringify(field)} in ${JSON.stringify(block)}`);
    }
    if (data.length === 0) {
      if (id !== undefined || event !== undefined) throw new Error(`SSE frame without data: ${JSON.stringify(block)}`);
      return;
    }
    if (data.length !== 1) throw new Error(`SSE frame with ${data.length} data lines: ${JSON.stringify(block)}`);
    const envelope = JSON.parse(data[0]!) as Envelope;
    if (event === undefined || envelope.type !== event) throw new Error(`envelope type ${envelope.type} does not match event: ${event}`);
    const numericId = id === undefined ? undefined : Number(id);
    if (numericId !== envelope.id) throw new Error(`envelope id ${envelope.id} does not match id: ${id}`);
    checkFrame?.(envelope);
    frames.push({ id: numericId, event, envelope, data: envelope.data, raw: block });
  };

  if (!ended) {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      let buffer = "";
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            dispatch(block);
          }
          notify();
        }
      } catch (err) {
        if (!abort.signal.aborted) failure = err instanceof Error ? err : new Error(String(err));
        abort.abort();
      } finally {
        ended = true;
        notify();
      }
    })();
  } else {
    await response.body?.cancel().catch(() => {});
  }

  const changed = (deadline: number) =>
    new Promise<boolean>((resolve) => {
      const wake = () => {
        waiters.delete(wake);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiters.delete(wake);
        resolve(false);
      }, Math.max(0, deadline - Date.now()));
      waiters.add(wake);
    });

  const client: SseClient = {
    status: response.status,
    headers: response.headers,
    get retry() {
      return retry;
    },
    blocks,
    frames,
    get ended() {
      return ended;
    },
    types: () => frames.map((f) => f.event),
    async next(timeoutMs = DEFAULT_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (failure) throw failure;
        if (consumed < frames.length) return frames[consumed++]!;
        if (ended) return null;
        if (!(await changed(deadline))) throw new Error(`no SSE frame within ${timeoutMs} ms (seen: ${seen()})`);
      }
    },
    async waitFor(type, predicate = () => true, timeoutMs = DEFAULT_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const left = deadline - Date.now();
        let frame: SseFrame | null;
        try {
          frame = left > 0 ? await client.next(left) : null;
        } catch (err) {
          throw new Error(`waiting for ${type}: ${(err as Error).message}`);
        }
        if (frame === null) throw new Error(`stream ended before ${type} (seen: ${seen()})`);
        if (frame.event === type && predicate(frame)) return frame;
      }
    },
    async first(type, predicate = () => true, timeoutMs = DEFAULT_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (failure) throw new Error(`waiting for ${type}: ${failure.message}`);
        const found = frames.find((f) => f.event === type && predicate(f));
        if (found) return found;
        if (ended) throw new Error(`stream ended before ${type} (seen: ${seen()})`);
        if (!(await changed(deadline))) throw new Error(`no ${type} frame within ${timeoutMs} ms (seen: ${seen()})`);
      }
    },
    async waitForEnd(timeoutMs = DEFAULT_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!ended) if (!(await changed(deadline))) throw new Error(`stream still open after ${timeoutMs} ms`);
      if (failure) throw failure;
    },
    close() {
      abort.abort();
    },
    async [Symbol.asyncDispose]() {
      client.close();
      if (failure) throw failure;
    },
  };
  return client;
}
