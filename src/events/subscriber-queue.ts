/**
 * Bounded live queue of one subscriber (pure). It holds references to frames shared with the ring
 * and every other subscriber, oldest first. Each queued frame is either owed or charged:
 * - owed: offered while the writer was waiting for data (its socket had drained, and it takes the
 *   frame as soon as the publishing task yields), or sitting at the head (the frame the writer
 *   writes next). Owed frames are never refused: a synchronous burst (a prompt's echo of hundreds
 *   of blocks) reaches a subscriber that keeps up, and so does a single frame larger than the byte
 *   cap. What a burst pins is the burst itself, shared by all subscribers, never a copy.
 * - charged: what waits behind a busy writer. Caps: `maxQueued` frames and `maxQueuedBytes` bytes.
 *   Crossing 75% of either raises one warning per episode; the episode ends (the warning re-arms)
 *   once both are back below 37.5%. Reaching a cap is an overflow: the caller evicts the subscriber.
 * Owed frames always form a prefix: the writer only waits when the queue is empty.
 */
import type { Frame } from "./frame.ts";

export const WARN_RATIO = 0.75;
export const REARM_RATIO = 0.375;

export type OfferResult =
  | { readonly kind: "queued" }
  | { readonly kind: "warn"; readonly threshold: "frames" | "bytes" | "frames_and_bytes" }
  | { readonly kind: "overflow"; readonly reason: "queue_overflow" | "queue_bytes_overflow" };

/** Past this many taken slots at the front (and half the array), the array is compacted. */
const COMPACT_AFTER = 1024;

export class SubscriberQueue {
  private frames: Frame[] = [];
  /** Index of the head in `frames` (slots before it are taken). */
  private head = 0;
  private totalBytes = 0;
  /** The owed prefix: frames offered while the writer waited. */
  private owedCount = 0;
  private owedBytes = 0;
  private warned = false;

  constructor(
    readonly maxQueued: number,
    readonly maxQueuedBytes: number,
  ) {}

  get size(): number {
    return this.frames.length - this.head;
  }

  /** Charged frames: what `maxQueued` bounds. */
  get chargedFrames(): number {
    return this.size - (this.owedCount > 0 ? this.owedCount : Math.min(1, this.size));
  }

  /** Charged bytes: what `maxQueuedBytes` bounds. */
  get chargedBytes(): number {
    const exempt = this.owedCount > 0 ? this.owedBytes : this.size > 0 ? this.frames[this.head]!.bytes : 0;
    return this.totalBytes - exempt;
  }

  /** Queues `frame`; `writerWaiting` says the writer is waiting for data (the frame is then owed). */
  offer(frame: Frame, writerWaiting: boolean): OfferResult {
    if (writerWaiting && this.owedCount === this.size) {
      this.push(frame);
      this.owedCount++;
      this.owedBytes += frame.bytes;
      return { kind: "queued" };
    }
    if (this.size === 0) {
      this.push(frame); // the head: owed
      return { kind: "queued" };
    }
    const frames = this.chargedFrames + 1;
    const bytes = this.chargedBytes + frame.bytes;
    if (frames > this.maxQueued) return { kind: "overflow", reason: "queue_overflow" };
    if (bytes > this.maxQueuedBytes) return { kind: "overflow", reason: "queue_bytes_overflow" };
    this.push(frame);
    if (this.warned) return { kind: "queued" };
    const overFrames = frames >= this.maxQueued * WARN_RATIO;
    const overBytes = bytes >= this.maxQueuedBytes * WARN_RATIO;
    if (!overFrames && !overBytes) return { kind: "queued" };
    this.warned = true;
    return { kind: "warn", threshold: overFrames && overBytes ? "frames_and_bytes" : overFrames ? "frames" : "bytes" };
  }

  /** The head, without taking it. */
  peek(): Frame | undefined {
    return this.frames[this.head];
  }

  /** Takes the head. */
  shift(): Frame | undefined {
    const frame = this.frames[this.head];
    if (frame === undefined) return undefined;
    this.head++;
    this.totalBytes -= frame.bytes;
    if (this.owedCount > 0) {
      this.owedCount--;
      this.owedBytes -= frame.bytes;
    }
    if (this.head === this.frames.length) this.clear();
    else if (this.head > COMPACT_AFTER && this.head * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.head);
      this.head = 0;
    }
    if (this.warned && this.chargedFrames < this.maxQueued * REARM_RATIO && this.chargedBytes < this.maxQueuedBytes * REARM_RATIO) this.warned = false;
    return frame;
  }

  /** Drops everything queued; the next episode starts armed. */
  clear(): void {
    this.frames = [];
    this.head = 0;
    this.totalBytes = 0;
    this.owedCount = 0;
    this.owedBytes = 0;
    this.warned = false;
  }

  private push(frame: Frame): void {
    this.frames.push(frame);
    this.totalBytes += frame.bytes;
  }
}
