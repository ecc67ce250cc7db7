/**
 * An event stream over a raw socket that stops reading, so TCP backpressure reaches the daemon the
 * way a stalled client's does (`fetch` keeps reading into its own buffer). It reads until the
 * stream has started (or `stallAfter` has arrived), then pauses; `resume` reads on, parsing the
 * chunked SSE body as it comes.
 *
 *   await using stalled = await openStalledSse(d.port, `/session/${id}/events?maxQueued=16`);
 *   // … publish while nothing is read …
 *   const { frames, ended } = await stalled.resume();
 */
import type { Socket } from "bun";
import { until } from "./until.ts";

export interface RawSseFrame {
  /** The `id:` line's value (undefined on synthetic frames). */
  readonly id: number | undefined;
  readonly event: string;
  readonly data: any;
}

export interface ResumeOptions {
  /** Stop reading once this holds (default: read until the server ends the stream). */
  readonly until?: (frames: readonly RawSseFrame[]) => boolean;
  readonly timeoutMs?: number;
}

export interface StalledSse extends AsyncDisposable {
  /** Every frame parsed so far. */
  readonly frames: readonly RawSseFrame[];
  /** Reads again until the stream ends (or `until` holds); throws on timeout. */
  resume(options?: ResumeOptions): Promise<{ frames: readonly RawSseFrame[]; ended: boolean }>;
}

const CRLF_CRLF = "\r\n\r\n";

/** Incremental parser of an HTTP/1.1 response head, then a chunked body of SSE frames. */
class ChunkedSseParser {
  readonly frames: RawSseFrame[] = [];
  status: number | null = null;
  /** The chunked body's last chunk has arrived. */
  done = false;
  private head = "";
  /** Bytes not yet parsed: part of a chunk-size line (or of the head). */
  private pending = new Uint8Array(0);
  /** Body bytes still due in the current chunk, then its CRLF. */
  private inChunk = 0;
  private crlfDue = 0;
  private readonly decoder = new TextDecoder();
  private text = "";
  /** Raw body text seen so far, kept only until `stallAfter` is found. */
  private watched: string | null;

  constructor(private readonly stallAfter: string) {
    this.watched = "";
  }

  /** Whether the stall marker has been seen in the body. */
  get started(): boolean {
    return this.watched === null;
  }

  feed(bytes: Uint8Array): void {
    let data = this.pending.byteLength === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    this.pending = new Uint8Array(0);
    if (this.status === null) {
      const latin = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1");
      const end = (this.head + latin).indexOf(CRLF_CRLF);
      if (end === -1) {
        this.head += latin;
        return;
      }
      const consumed = end + 4 - this.head.length;
      const headText = (this.head + latin).slice(0, end);
      this.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? NaN);
      if (!/transfer-encoding: chunked/i.test(headText)) throw new Error(`expected a chunked event stream, got: ${headText}`);
      data = data.subarray(consumed);
    }
    let pos = 0;
    while (pos < data.byteLength && !this.done) {
      if (this.crlfDue > 0) {
        const skip = Math.min(this.crlfDue, data.byteLength - pos);
        this.crlfDue -= skip;
        pos += skip;
        continue;
      }
      if (this.inChunk > 0) {
        const take = Math.min(this.inChunk, data.byteLength - pos);
        this.body(data.subarray(pos, pos + take));
        this.inChunk -= take;
        pos += take;
        if (this.inChunk === 0) this.crlfDue = 2;
        continue;
      }
      const eol = data.indexOf(0x0a, pos);
      if (eol === -1) {
        this.pending = data.slice(pos);
        return;
      }
      const size = parseInt(Buffer.from(data.subarray(pos, eol)).toString("latin1").trim(), 16);
      if (!Number.isFinite(size)) throw new Error("malformed chunk size");
      pos = eol + 1;
      if (size === 0) this.done = true;
      else this.inChunk = size;
    }
  }

  private body(bytes: Uint8Array): void {
    const text = this.decoder.decode(bytes, { stream: true });
    if (this.watched !== null) {
      this.watched += text;
      if (this.watched.includes(this.stallAfter)) this.watched = null;
    }
    this.text += text;
    for (let end = this.text.indexOf("\n\n"); end !== -1; end = this.text.indexOf("\n\n")) {
      const block = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      this.dispatch(block);
    }
  }

  private dispatch(block: string): void {
    let id: number | undefined;
    let event: string | undefined;
    let data: string | undefined;
    for (const line of block.split("\n")) {
      if (line.startsWith(":") || line.startsWith("retry: ")) continue;
      if (line.startsWith("id: ")) id = Number(line.slice(4));
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) {
        if (data !== undefined) throw new Error(`SSE frame with two data lines: ${block.slice(0, 200)}`);
        data = line.slice(6);
      } else throw new Error(`unexpected SSE line ${JSON.stringify(line.slice(0, 80))}`);
    }
    if (data === undefined) return;
    const envelope = JSON.parse(data) as { id?: number; type: string; data: unknown };
    if (envelope.type !== event || envelope.id !== id) throw new Error(`envelope ${envelope.type}/${envelope.id} does not match its frame ${event}/${id}`);
    this.frames.push({ id, event, data: envelope.data });
  }
}

/**
 * GETs `path` on 127.0.0.1:`port` as an event stream, reads until `stallAfter` has arrived in the
 * body (default: the `retry:` line, i.e. the stream has started), then stops reading.
 */
export async function openStalledSse(port: number, path: string, headers: Record<string, string> = {}, stallAfter = "retry: 3000"): Promise<StalledSse> {
  const parser = new ChunkedSseParser(stallAfter);
  let closed = false;
  let resumed = false;
  let failure: Error | null = null;
  const request =
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nConnection: close\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("") +
    "\r\n";
  const socket: Socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(s) {
        s.write(request);
      },
      data(s, chunk) {
        try {
          parser.feed(chunk);
        } catch (error) {
          failure = error as Error;
          s.terminate();
        }
        if (parser.started && !resumed) s.pause();
      },
      close() {
        closed = true;
      },
      error() {
        closed = true;
      },
    },
  });
  const check = () => {
    if (failure) throw failure;
  };
  await until(() => (check(), parser.started || closed), 5000, `the stream to deliver ${JSON.stringify(stallAfter)}`);
  if (parser.status !== 200) throw new Error(`expected a 200 event stream, got ${parser.status}`);
  return {
    frames: parser.frames,
    async resume(options = {}) {
      resumed = true;
      socket.resume();
      const ended = () => closed || parser.done;
      await until(() => (check(), ended() || options.until?.(parser.frames)), options.timeoutMs ?? 10_000, "the stalled stream to be read");
      return { frames: parser.frames, ended: ended() };
    },
    async [Symbol.asyncDispose]() {
      socket.terminate();
    },
  };
}
