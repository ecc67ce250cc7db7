/**
 * Bounded live queue of one subscriber (pure). Caps are frames (`maxQueued`) and bytes
 * (`maxQueuedBytes`). Crossing 75% of either raises one warning per episode; the episode ends (the
 * warning re-arms) when both drop below 37.5% (the writer drains the whole queue at once, so the
 * drain is that moment). Reaching a cap is an overflow: the caller evicts the subscriber.
 */
import type { Frame } from "./frame.ts";

export const WARN_RATIO = 0.75;

export type OfferResult =
  | { readonly kind: "queued" }
  | { readonly kind: "warn"; readonly threshold: "frames" | "bytes" | "frames_and_bytes" }
  | { readonly kind: "overflow"; readonly reason: "queue_overflow" | "queue_bytes_overflow" };

export class SubscriberQueue {
  private frames: Frame[] = [];
  private queuedBytes = 0;
  private warned = false;

  constructor(
    readonly maxQueued: number,
    readonly maxQueuedBytes: number,
  ) {}

  get size(): number {
    return this.frames.length;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  offer(frame: Frame): OfferResult {
    if (this.size + 1 > this.maxQueued) return { kind: "overflow", reason: "queue_overflow" };
    if (this.queuedBytes + frame.bytes > this.maxQueuedBytes) return { kind: "overflow", reason: "queue_bytes_overflow" };
    this.frames.push(frame);
    this.queuedBytes += frame.bytes;
    if (this.warned) return { kind: "queued" };
    const overFrames = this.size >= this.maxQueued * WARN_RATIO;
    const overBytes = this.queuedBytes >= this.maxQueuedBytes * WARN_RATIO;
    if (!overFrames && !overBytes) return { kind: "queued" };
    this.warned = true;
    return { kind: "warn", threshold: overFrames && overBytes ? "frames_and_bytes" : overFrames ? "frames" : "bytes" };
  }

  /** Removes and returns everything queued, oldest first. */
  drain(): Frame[] {
    const out = this.frames;
    this.frames = [];
    this.queuedBytes = 0;
    this.warned = false; // an empty queue is below the re-arm mark
    return out;
  }

  clear(): void {
    this.drain();
  }
}
