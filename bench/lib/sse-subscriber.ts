/**
 * An event-stream subscriber on a raw TCP socket (`Bun.connect`), built to time delivery without
 * adding to it: the socket's data callback only stamps the chunk with `performance.now()`, stores
 * it, and counts `event: <type>` lines of the watched types (a native `Buffer.indexOf`). Parsing
 * (HTTP framing, SSE blocks, JSON envelopes) waits until `frames()` is called, after the timing.
 * Each frame's `arrivedAt` is that of the chunk that completed it. The daemon writes each batch of
 * frames as one HTTP chunk, so chunk framing never splits a marker; if it did, `waitFor` would time
 * out (a loud failure), never mis-time.
 */
import type { Socket } from "bun";
import { HttpResponseReader } from "./http-response-reader.ts";

export interface ArrivedFrame {
  readonly id: number | undefined;
  readonly type: string;
  readonly promptId: string | undefined;
  /** The envelope's `_meta.serverTimestamp` (the daemon's `Date.now()`, whole milliseconds). */
  readonly serverTimestamp: number;
  readonly data: unknown;
  /** `performance.now()` of the chunk that completed the frame. */
  readonly arrivedAt: number;
}

interface Chunk {
  readonly at: number;
  readonly bytes: Uint8Array;
}

/** A stream that has not answered with its head by then is taken as broken. */
const HEAD_TIMEOUT_MS = 30_000;

export class SseSubscriber {
  /** `performance.now()` just before connecting. */
  readonly startedAt: number;
  private readonly chunks: Chunk[] = [];
  private parsedChunks = 0;
  private readonly reader = new HttpResponseReader();
  private readonly decoder = new TextDecoder();
  private text = "";
  private readonly parsed: ArrivedFrame[] = [];
  private readonly markers: { type: string; needle: Buffer; arrivals: number[] }[];
  private readonly longest: number;
  private tail: Buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private socket: Socket | null = null;
  private closed = false;

  private constructor(watch: readonly string[]) {
    this.startedAt = performance.now();
    this.markers = watch.map((type) => ({ type, needle: Buffer.from(`\nevent: ${type}\n`), arrivals: [] }));
    this.longest = Math.max(0, ...this.markers.map((m) => m.needle.byteLength));
  }

  /**
   * Connects and sends `GET <path>`; resolves once the response head has arrived (the daemon has
   * registered the subscription by then). `watch`: event types whose arrivals `waitFor` can await.
   */
  static async open(baseUrl: string, path: string, options: { headers?: Record<string, string>; watch?: readonly string[] } = {}): Promise<SseSubscriber> {
    const sub = new SseSubscriber(options.watch ?? []);
    const { hostname, port, host } = new URL(baseUrl);
    const socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        data: (_s, chunk) => sub.onData(chunk, performance.now()),
        close: () => sub.onClose(),
        error: () => sub.onClose(),
      },
    });
    sub.socket = socket;
    const headers = { Host: host, Accept: "text/event-stream", ...options.headers };
    socket.write(`GET ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
    const head = await sub.until(() => sub.reader.head !== null || sub.closed, HEAD_TIMEOUT_MS);
    if (!head || sub.reader.head?.status !== 200) {
      sub.close();
      throw new Error(`GET ${path}: expected an event stream, got ${sub.reader.head?.status ?? "no answer"}`);
    }
    return sub;
  }

  /** Arrival times (`performance.now()`) of the watched `type`'s frames so far. */
  private arrivals(type: string): readonly number[] {
    const marker = this.markers.find((m) => m.type === type);
    if (marker === undefined) throw new Error(`${type} is not watched`);
    return marker.arrivals;
  }

  /** Resolves with the arrival time of the `count`-th frame of a watched `type`. */
  async waitFor(type: string, count: number, timeoutMs: number): Promise<number> {
    const arrivals = this.arrivals(type);
    if (!(await this.until(() => arrivals.length >= count || this.closed, timeoutMs)) || arrivals.length < count)
      throw new Error(`stream ended or timed out before ${count}× ${type} (saw ${arrivals.length})`);
    return arrivals[count - 1]!;
  }

  /** Every frame received so far, parsed now (comments and `retry:` blocks left out). */
  frames(): readonly ArrivedFrame[] {
    this.parse();
    return this.parsed;
  }

  close(): void {
    this.closed = true;
    this.socket?.end();
    this.wake();
  }

  private onData(chunk: Uint8Array, at: number): void {
    this.chunks.push({ at, bytes: chunk });
    if (this.reader.head === null) this.parse();
    if (this.markers.length > 0) this.count(chunk, at);
    this.wake();
  }

  private onClose(): void {
    this.closed = true;
    this.wake();
  }

  /** Counts watched markers in the chunk, and those that straddle it and the previous one. */
  private count(chunk: Uint8Array, at: number): void {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const seam = this.tail.byteLength > 0 ? Buffer.concat([this.tail, buf.subarray(0, this.longest - 1)]) : null;
    for (const marker of this.markers) {
      if (seam !== null) {
        const i = seam.indexOf(marker.needle);
        if (i !== -1 && i < this.tail.byteLength && i + marker.needle.byteLength > this.tail.byteLength) marker.arrivals.push(at);
      }
      for (let i = buf.indexOf(marker.needle); i !== -1; i = buf.indexOf(marker.needle, i + 1)) marker.arrivals.push(at);
    }
    this.tail = Buffer.from(buf.subarray(Math.max(0, buf.byteLength - (this.longest - 1))));
  }

  private parse(): void {
    for (; this.parsedChunks < this.chunks.length; this.parsedChunks++) {
      const { at, bytes } = this.chunks[this.parsedChunks]!;
      for (const piece of this.reader.push(bytes)) this.text += this.decoder.decode(piece, { stream: true });
      for (let end = this.text.indexOf("\n\n"); end !== -1; end = this.text.indexOf("\n\n")) {
        const block = this.text.slice(0, end);
        this.text = this.text.slice(end + 2);
        const frame = parseBlock(block, at);
        if (frame !== null) this.parsed.push(frame);
      }
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves true once `condition` holds (checked on every chunk), false after `timeoutMs`. */
  private until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(false);
      }, timeoutMs);
      const check = () => {
        if (!condition()) {
          this.waiters.push(check);
          return;
        }
        clearTimeout(timer);
        resolve(true);
      };
      check();
    });
  }
}

/** One SSE block → a frame; null for comments and `retry:` blocks. */
function parseBlock(block: string, at: number): ArrivedFrame | null {
  let id: number | undefined;
  let type: string | undefined;
  let data: string | undefined;
  for (const line of block.split("\n")) {
    if (line.startsWith("id: ")) id = Number(line.slice(4));
    else if (line.startsWith("event: ")) type = line.slice(7);
    else if (line.startsWith("data: ")) data = line.slice(6);
  }
  if (type === undefined || data === undefined) return null;
  const envelope = JSON.parse(data) as { promptId?: string; data: unknown; _meta: { serverTimestamp: number } };
  return { id, type, promptId: envelope.promptId, serverTimestamp: envelope._meta.serverTimestamp, data: envelope.data, arrivedAt: at };
}
