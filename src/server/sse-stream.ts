/**
 * Writes one event subscription as an SSE response. The stream is pulled by the socket (high water
 * mark 0), so a slow client leaves frames in its bounded subscriber queue, where the bus warns and
 * evicts. While idle, `: heartbeat` comments keep the connection (and proxies) alive; with a writer
 * idle timeout, a client that accepts nothing for that long is evicted.
 */
import type { Subscription } from "../events/event-bus.ts";
import type { Frame } from "../events/frame.ts";

/** Heartbeat comment interval; well inside any idle timeout in front of us. */
export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 3000;

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

export function sseResponse(sub: Subscription, options: SseOptions): Response {
  const streamId = crypto.randomUUID();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  let pending: Promise<Frame[] | null> | null = null;
  /** Since when written data has waited for the client to take more; null while a pull waits for frames. */
  let unreadSince: number | null = Date.now();
  let idleTimer: Timer | null = null;
  let closed = false;

  const finish = () => {
    if (closed) return;
    closed = true;
    if (idleTimer) clearInterval(idleTimer);
    sub.cancel();
    options.onClose();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
        const timeout = options.writerIdleTimeoutMs;
        if (timeout !== null) {
          const every = Math.max(250, Math.min(5000, Math.floor(timeout / 4)));
          idleTimer = setInterval(() => {
            // A quiet session is not an idle writer: only time the client spends not reading counts.
            if (closed || unreadSince === null) return;
            const idleFor = Date.now() - unreadSince;
            if (idleFor < timeout) return;
            try {
              controller.enqueue(encoder.encode(options.idleEviction(idleFor, timeout).text));
              controller.close();
            } catch {
              // the consumer is gone already
            }
            finish();
          }, every);
        }
      },
      async pull(controller) {
        unreadSince = null;
        pending ??= sub.next();
        let timer: Timer | undefined;
        const beat = new Promise<"beat">((resolve) => (timer = setTimeout(resolve, heartbeatMs, "beat")));
        const result = await Promise.race([pending, beat]);
        clearTimeout(timer);
        if (closed) return;
        unreadSince = Date.now();
        if (result === "beat") {
          controller.enqueue(encoder.encode(": heartbeat\n\n"));
          return;
        }
        pending = null;
        if (result === null) {
          controller.close();
          finish();
          return;
        }
        let text = "";
        for (const frame of result) text += frame.text;
        controller.enqueue(encoder.encode(text));
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
