/**
 * Per-session event bus: monotonic ids from 1 within a random epoch, a replay ring, and bounded
 * subscribers. `publish` never blocks and never throws on behalf of a subscriber: a subscriber that
 * falls behind is warned (`slow_client_warning`) and then evicted (`client_evicted`), and the
 * session goes on.
 */
import { encodeFrame, type EnvelopeFields, type Frame } from "./frame.ts";
import { ReplayRing } from "./replay-ring.ts";
import { planReplay, type ReplayRequest } from "./replay-plan.ts";
import { SubscriberQueue } from "./subscriber-queue.ts";

/** Live queue defaults and bounds (frames); `maxQueued` from clients must fall in [MIN, MAX]. */
export const DEFAULT_MAX_QUEUED = 256;
export const MIN_MAX_QUEUED = 16;
export const MAX_MAX_QUEUED = 2048;
/** Live byte cap per subscriber; overflow evicts. */
export const MAX_QUEUED_BYTES = 2 * 1024 * 1024;
/** Replay byte budget per subscription; past it the replay stops with `replay_budget_exceeded`. */
export const REPLAY_BYTE_BUDGET = 8 * 1024 * 1024;

export interface BusOptions {
  readonly ringSize: number;
  /** Subscribers per session; past it `subscribe` returns null. */
  readonly maxSubscribers: number;
  readonly now?: () => number;
  readonly epoch?: string;
}

export interface SubscribeOptions extends ReplayRequest {
  readonly maxQueued?: number;
}

/** One subscriber's view: replay first, then live frames, until it ends. */
export class Subscription {
  private replay: Frame[];
  private readonly queue: SubscriberQueue;
  private waiter: ((frames: Frame[] | null) => void) | null = null;
  private final: Frame | null = null;
  /** open → accepting frames; ending → delivering what is left, then done. */
  private state: "open" | "ending" = "open";

  constructor(
    private readonly bus: EventBus,
    replay: Frame[],
    maxQueued: number,
  ) {
    this.replay = replay;
    this.queue = new SubscriberQueue(maxQueued, MAX_QUEUED_BYTES);
  }

  /** True once no further frames will be accepted. */
  get ended(): boolean {
    return this.state !== "open";
  }

  /** Resolves with the next batch of frames to write, or null once the subscription is over. */
  next(): Promise<Frame[] | null> {
    const batch = this.take();
    if (batch !== null || this.state !== "open") return Promise.resolve(batch);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Graceful end (the session closed): what is queued is still delivered, then `next` gives null. */
  end(): void {
    if (this.state !== "open") return;
    this.state = "ending";
    this.bus.detach(this);
    this.wake();
  }

  /** Immediate stop (the client went away): everything queued is dropped. Idempotent. */
  cancel(): void {
    this.replay = [];
    this.queue.clear();
    this.final = null;
    this.end();
  }

  /** @internal called by the bus for each published frame. */
  offer(frame: Frame): void {
    if (this.state !== "open") return;
    const result = this.queue.offer(frame);
    if (result.kind === "overflow") {
      const evicted = this.bus.synthetic("client_evicted", {
        reason: result.reason,
        droppedAfter: this.bus.lastId,
        queueSize: this.queue.size,
        maxQueued: this.queue.maxQueued,
        queuedBytes: this.queue.bytes,
        maxQueuedBytes: this.queue.maxQueuedBytes,
        eventBytes: frame.bytes,
      });
      this.replay = [];
      this.queue.clear();
      this.final = evicted;
      this.end();
      return;
    }
    if (result.kind === "warn") {
      // The warning goes in right behind the frame that crossed the mark.
      this.queue.offer(
        this.bus.synthetic("slow_client_warning", {
          queueSize: this.queue.size,
          maxQueued: this.queue.maxQueued,
          lastEventId: this.bus.lastId,
          queuedBytes: this.queue.bytes,
          maxQueuedBytes: this.queue.maxQueuedBytes,
          threshold: result.threshold,
        }),
      );
    }
    this.wake();
  }

  private take(): Frame[] | null {
    let out: Frame[] | null = null;
    if (this.replay.length > 0) {
      out = this.replay;
      this.replay = [];
    }
    if (this.queue.size > 0) out = out === null ? this.queue.drain() : out.concat(this.queue.drain());
    if (this.final !== null) {
      (out ??= []).push(this.final);
      this.final = null;
    }
    return out;
  }

  private wake(): void {
    if (this.waiter === null) return;
    const batch = this.take();
    if (batch === null && this.state === "open") return;
    const resolve = this.waiter;
    this.waiter = null;
    resolve(batch);
  }
}

export class EventBus {
  readonly epoch: string;
  private readonly ring: ReplayRing;
  private readonly subscribers = new Set<Subscription>();
  private readonly now: () => number;
  private nextId = 1;
  private isClosed = false;

  constructor(private readonly options: BusOptions) {
    this.epoch = options.epoch ?? crypto.randomUUID();
    this.ring = new ReplayRing(options.ringSize);
    this.now = options.now ?? Date.now;
  }

  /** Id of the newest published event (0 before the first). */
  get lastId(): number {
    return this.nextId - 1;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Publishes an id-carrying event to the ring and every subscriber. Never throws for them. */
  publish(type: string, data: unknown, fields?: EnvelopeFields): Frame | null {
    if (this.isClosed) return null;
    const frame = encodeFrame(this.nextId++, type, data, fields, this.now());
    this.ring.push(frame);
    for (const sub of this.subscribers) sub.offer(frame);
    return frame;
  }

  /** An id-less frame (never stored, never consumes an id). */
  synthetic(type: string, data: unknown): Frame {
    return encodeFrame(undefined, type, data, {}, this.now());
  }

  /**
   * Registers a subscriber. The replay (per the request's Last-Event-ID and epoch) is computed and
   * the subscriber attached in one synchronous step, so nothing is lost or doubled in between.
   * Returns null when the session already has `maxSubscribers`.
   */
  subscribe(options: SubscribeOptions): Subscription | null {
    if (this.subscribers.size >= this.options.maxSubscribers) return null;
    const replay = planReplay(options, { epoch: this.epoch, lastId: this.lastId, ring: this.ring, budgetBytes: REPLAY_BYTE_BUDGET }).map((step) =>
      "frame" in step ? step.frame : this.synthetic(step.type, step.data),
    );
    const sub = new Subscription(this, replay, options.maxQueued ?? DEFAULT_MAX_QUEUED);
    if (this.isClosed) sub.end();
    else this.subscribers.add(sub);
    return sub;
  }

  /** Refuses further publishes and ends every subscription once it has delivered what it holds. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const sub of [...this.subscribers]) sub.end();
  }

  /** @internal */
  detach(sub: Subscription): void {
    this.subscribers.delete(sub);
  }
}
