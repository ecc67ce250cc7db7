/**
 * Writes one event subscription to a sink (the socket behind a Bun direct stream). A writer that
 * keeps up is woken synchronously by the bus (`Subscription.whenReady`), in the task that released
 * the frame, and writes it there: no promise and no stream queue per frame, and the frame's bytes
 * are the ones the bus encoded once for every subscriber. Flushes are corked: every writer that
 * wrote in a task is flushed once, in one microtask after it, so a burst of frames released
 * together (a journal commit) costs each socket one send.
 *
 * Backpressure comes from the sink: a write the socket could not take returns a promise, and the
 * writer writes nothing more until it settles. So a slow client leaves frames in its subscriber (a
 * replay cursor and a bounded queue of shared frames, where the bus warns and evicts), and what it
 * costs the sink beyond that is one write of at most WRITE_CHUNK_BYTES, whatever the replay or
 * frame size. A batch of small frames is joined into one write, a larger frame is written in
 * slices (views, no copy). While the client is caught up and the session is quiet, `: heartbeat`
 * comments keep the connection (and proxies) alive; with a writer idle timeout, a client that
 * accepts nothing for that long is evicted.
 */
import type { Subscription } from "../events/event-bus.ts";
import type { Frame } from "../events/frame.ts";

/** Heartbeat comment interval; well inside any idle timeout in front of us. */
export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 3000;
/** Most bytes handed to the sink per write: what a client that stops reading holds beyond its subscriber. */
export const WRITE_CHUNK_BYTES = 64 * 1024;

/** Where the writer writes (Bun's `ReadableStreamDirectController` for an HTTP response). */
export interface SseSink {
  /** A number once the bytes are taken, a promise while the socket holds them back. */
  write(bytes: Uint8Array): number | Promise<number>;
  flush(): unknown;
  close(): void;
}

export interface SseWriterOptions {
  readonly heartbeatMs?: number;
  readonly writerIdleTimeoutMs: number | null;
  /** Builds the eviction frame when the writer idles out. */
  readonly idleEviction: (idleForMs: number, timeoutMs: number) => Frame;
  /** Called once when the writer stops for any reason. */
  readonly onClose: () => void;
}

const encoder = new TextEncoder();
const RETRY = encoder.encode(`retry: ${RETRY_MS}\n\n`);
const HEARTBEAT = encoder.encode(": heartbeat\n\n");

/** Sinks written to in this task, flushed together in one microtask. */
const unflushed = new Set<SseSink>();

function flushAll(): void {
  for (const sink of unflushed) {
    try {
      sink.flush();
    } catch {
      // the consumer is gone; its writer hears of it through the stream's cancel
    }
  }
  unflushed.clear();
}

function markWritten(sink: SseSink): void {
  if (unflushed.size === 0) queueMicrotask(flushAll);
  unflushed.add(sink);
}

/** One write for a batch of frames (a batch of several is at most WRITE_CHUNK_BYTES). */
function join(frames: readonly Frame[]): Uint8Array {
  if (frames.length === 1) return frames[0]!.encoded;
  return Buffer.concat(frames.map((f) => f.encoded));
}

export class SseWriter {
  /** Since when the write the sink holds back has waited for the client; null while nothing is held back. */
  private blockedSince: number | null = null;
  /** The writer waits for frames (the client has taken everything). */
  private caughtUp = false;
  private lastWrite = Date.now();
  private readonly timers: Timer[] = [];
  private closed = false;
  /** The unwritten rest of a frame larger than a chunk; it goes before anything else. */
  private rest: Uint8Array | null = null;
  private readonly pumpBound = () => this.pump();
  private resolveDone!: () => void;
  /** Settles once the writer has stopped. */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly sub: Subscription,
    private readonly sink: SseSink,
    private readonly options: SseWriterOptions,
  ) {
    const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.send(RETRY);
    // One timer per stream: a heartbeat goes out only while the client is caught up and nothing
    // was written for a whole interval. Ticking at a quarter of the interval keeps the silence
    // between writes under 1.25 intervals.
    this.timers.push(setInterval(() => this.heartbeat(heartbeatMs), Math.max(1, Math.floor(heartbeatMs / 4))));
    const timeout = options.writerIdleTimeoutMs;
    if (timeout !== null) {
      const every = Math.max(250, Math.min(5000, Math.floor(timeout / 4)));
      this.timers.push(setInterval(() => this.checkIdle(timeout), every));
    }
    if (!this.closed) this.pump();
  }

  /** The consumer went away: everything queued is dropped. Idempotent. */
  cancel(): void {
    this.finish();
  }

  /** Writes what the subscription has, until it has nothing or the sink holds a write back. */
  private pump(): void {
    this.caughtUp = false;
    while (!this.closed && this.blockedSince === null) {
      if (this.rest !== null) {
        this.send(this.rest);
        continue;
      }
      const frames = this.sub.poll(WRITE_CHUNK_BYTES);
      if (frames === null) {
        if (this.sub.ended) {
          this.end();
          return;
        }
        this.caughtUp = true;
        this.sub.whenReady(this.pumpBound);
        return;
      }
      this.send(join(frames));
    }
  }

  /** Writes at most one chunk of `bytes`, keeping the remainder in `rest`. */
  private send(bytes: Uint8Array): void {
    this.rest = bytes.byteLength > WRITE_CHUNK_BYTES ? bytes.subarray(WRITE_CHUNK_BYTES) : null;
    let written: number | Promise<number>;
    try {
      written = this.sink.write(this.rest === null ? bytes : bytes.subarray(0, WRITE_CHUNK_BYTES));
    } catch {
      this.finish(); // the consumer is gone
      return;
    }
    this.lastWrite = Date.now();
    markWritten(this.sink);
    if (typeof written === "number") return;
    this.blockedSince = this.lastWrite;
    written.then(
      () => {
        this.blockedSince = null;
        this.pump();
      },
      () => this.finish(),
    );
  }

  private heartbeat(heartbeatMs: number): void {
    if (this.closed || !this.caughtUp || Date.now() - this.lastWrite < heartbeatMs) return;
    this.send(HEARTBEAT);
    if (this.blockedSince === null) return;
    // The client has not taken the heartbeat: frames published meanwhile wait behind a busy writer.
    this.caughtUp = false;
    this.sub.stopWaiting();
  }

  /** A quiet session is not an idle writer: only time the client spends not taking data counts. */
  private checkIdle(timeout: number): void {
    if (this.closed || this.blockedSince === null) return;
    const idleFor = Date.now() - this.blockedSince;
    if (idleFor < timeout) return;
    try {
      // A frame cut off mid-way would corrupt the stream: its rest goes first.
      if (this.rest !== null) this.sink.write(this.rest);
      this.rest = null;
      this.sink.write(this.options.idleEviction(idleFor, timeout).encoded);
      this.sink.flush();
      this.sink.close();
    } catch {
      // the consumer is gone already
    }
    this.finish();
  }

  /** The subscription is over and everything is written. */
  private end(): void {
    try {
      this.sink.flush();
      this.sink.close();
    } catch {
      // the consumer is gone already
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    unflushed.delete(this.sink);
    this.sub.cancel();
    this.options.onClose();
    this.resolveDone();
  }
}
