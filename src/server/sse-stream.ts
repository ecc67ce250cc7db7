/**
 * One event subscription as an SSE response. The body is a Bun direct stream: Bun calls `pull`
 * once with the response's sink, and the subscription's writer (`sse-writer.ts`) writes frames to
 * it as the bus releases them, until the subscription ends or the client goes away.
 */
import type { Subscription } from "../events/event-bus.ts";
import { SseWriter, type SseSink, type SseWriterOptions } from "./sse-writer.ts";

export { HEARTBEAT_MS, RETRY_MS, WRITE_CHUNK_BYTES } from "./sse-writer.ts";

export interface SseOptions extends SseWriterOptions {
  readonly epoch: string;
}

export function sseResponse(sub: Subscription, options: SseOptions): Response {
  let writer: SseWriter | null = null;
  let cancelled = false;
  const finish = () => {
    if (cancelled) return;
    cancelled = true;
    if (writer !== null) writer.cancel();
    else {
      sub.cancel();
      options.onClose();
    }
  };
  const body = new ReadableStream({
    type: "direct",
    pull(sink: SseSink) {
      if (cancelled) return;
      writer = new SseWriter(sub, sink, options);
      return writer.done;
    },
    cancel: finish,
  } as unknown as UnderlyingDefaultSource<Uint8Array>);
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
      "X-Svc-Event-Epoch": options.epoch,
      "X-Svc-SSE-Stream-Id": crypto.randomUUID(),
    },
  });
}
