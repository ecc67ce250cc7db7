/**
 * Writes one event subscription as an SSE response. The stream is pulled by the socket (high water
 * mark 0): each pull hands over one chunk of at most WRITE_CHUNK_BYTES, and the next pull comes
 * only once the socket has taken it. So a slow client leaves frames in its subscriber (a replay
 * cursor and a bounded queue of shared frames, where the bus warns and evicts), and what a stream
 * costs beyond that is one chunk, whatever the replay or frame size. Frames are already encoded
 * by the bus: a batch of small frames is joined into one chunk, a larger frame is written in
 * slices (views, no copy). While the client is caught up and the session is quiet, `: heartbeat`
 * comments keep the connection (and proxies) alive; with a writer idle timeout, a client that
 * accepts nothing for that long is evicted.
 */
import type { Subscription } from "../events/event-bus.ts";
import type { Frame } from "../events/frame.ts";

/** Heartbeat comment interval; well inside any idle timeout in front of us. */
export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 3000;
/**
 * Most bytes handed to the socket per pull. Bun copies the part of a chunk the socket did not take
 * yet, so for a client that stops reading this (not the replay, not a large frame) is what is held.
 */
export const WRITE_CHUNK_BYTES = 64 * 1024;

export interface SseOptions {
  readonly epoch: string;
  readonly heartbeatMs?: number;
  readonly writerIdleTimeoutMs: number | null;
  /** Builds the eviction frame when the writer idles out. */
  readonly idleEviction: (idleForMs: number, timeoutMs: number) => Frame;
  /** Called once when the stream ends for any reason. */
  readonly onClose: () => void;
}

const encoder = new TextEncoder();
const RETRY = encoder.encode(`retry: ${RETRY_MS}\n\n`);
const HEARTBEAT = encoder.encode(": heartbeat\n\n");

/** One chunk for a batch of frames (a batch of several is at most WRITE_CHUNK_BYTES). */
function join(frames: readonly Frame[]): Uint8Array {
  if (frames.length === 1) return frames[0]!.encoded;
  return Buffer.concat(frames.map((f) => f.encoded));
}

export function sseResponse(sub: Subscription, options: SseOptions): Response {
  const streamId = crypto.randomUUID();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  /** Since when written data has waited for the client to take more; null while a pull waits for frames. */
  let unreadSince: number | null = Date.now();
  let lastWrite = Date.now();
  const timers: Timer[] = [];
  let closed = false;
  /** The unwritten rest of a frame larger than a chunk; the next pulls write it before anything else. */
  let rest: Uint8Array | null = null;

  /** Enqueues at most one chunk of `bytes`, keeping the remainder in `rest`. */
  const write = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array) => {
    rest = bytes.byteLength > WRITE_CHUNK_BYTES ? bytes.subarray(WRITE_CHUNK_BYTES) : null;
    controller.enqueue(rest === null ? bytes : bytes.subarray(0, WRITE_CHUNK_BYTES));
    unreadSince = lastWrite = Date.now();
  };

  const finish = () => {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearInterval(timer);
    sub.cancel();
    options.onClose();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(RETRY);
        // One timer per stream (not per pull): a heartbeat goes out only while the client is caught
        // up (a pull is waiting) and nothing was written for a whole interval. Ticking at a quarter
        // of the interval keeps the silence between writes under 1.25 intervals.
        timers.push(
          setInterval(
            () => {
              if (closed || unreadSince !== null || Date.now() - lastWrite < heartbeatMs) return;
              lastWrite = Date.now();
              try {
                controller.enqueue(HEARTBEAT);
              } catch {
                finish(); // the consumer is gone
              }
            },
            Math.max(1, Math.floor(heartbeatMs / 4)),
          ),
        );
        const timeout = options.writerIdleTimeoutMs;
        if (timeout !== null) {
          const every = Math.max(250, Math.min(5000, Math.floor(timeout / 4)));
          timers.push(
            setInterval(() => {
              // A quiet session is not an idle writer: only time the client spends not reading counts.
              if (closed || unreadSince === null) return;
              const idleFor = Date.now() - unreadSince;
              if (idleFor < timeout) return;
              try {
                // A frame cut off mid-way would corrupt the stream: its rest goes first.
                if (rest !== null) controller.enqueue(rest);
                rest = null;
                controller.enqueue(options.idleEviction(idleFor, timeout).encoded);
                controller.close();
              } catch {
                // the consumer is gone already
              }
              finish();
            }, every),
          );
        }
      },
      async pull(controller) {
        if (rest !== null) return write(controller, rest);
        unreadSince = null;
        const frames = await sub.next(WRITE_CHUNK_BYTES);
        if (closed) return;
        if (frames === null) {
          controller.close();
          finish();
          return;
        }
        write(controller, join(frames));
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0 },
  );

  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
      "X-Svc-Event-Epoch": options.epoch,
      "X-Svc-SSE-Stream-Id": streamId,
    },
  });
}
