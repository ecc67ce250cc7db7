/**
 * Per-session event bus: monotonic ids from 1 within a random epoch, a replay ring, and bounded
 * subscribers. `publish` encodes first and takes an id only once the frame exists, so data that
 * cannot be encoded leaves the ids, the ring and every subscriber as they were (and throws
 * `EventEncodeError` to the caller). It never blocks and never throws on behalf of a subscriber: a
 * subscriber that falls behind is warned (`slow_client_warning`) and then evicted: it gets what it
 * had queued, then `client_evicted`, then its end; the session goes on.
 *
 * With a journal, a published frame is held back until the journal says it is durable: only then
 * does it join the ring and reach subscribers (so a client never sees an event a crash could take
 * back), and `lastId` is the newest frame released. Frames are released in publish order.
 *
 * When recording gives up on a frame (a full disk, a lock held too long), that frame still goes out,
 * but never before the session's clients were told: the first such frame since the last recorded
 * one makes the bus release the journal's stop notice ahead of it. The notice takes that frame's
 * id and every frame still held moves up by one (none has reached the ring or a subscriber yet),
 * so ids stay in order with no hole, the journal holds everything before the notice, and every
 * frame a client receives is either journaled or behind a notice that names the first id the
 * journal lacks. The notice says how many published frames it stands before; `recordingResumed`
 * says how many went out unrecorded in all.
 */
import type { EventData } from "./event-schemas.ts";
import { encodeFrame, renumberFrame, type EnvelopeFields, type Frame } from "./frame.ts";
import { ReplayCursor, type ReplayRequest } from "./replay-cursor.ts";
import { ReplayRing } from "./replay-ring.ts";
import { SubscriberQueue } from "./subscriber-queue.ts";

/** Live queue defaults and bounds (charged frames); `maxQueued` from clients must fall in [MIN, MAX]. */
export const DEFAULT_MAX_QUEUED = 256;
export const MIN_MAX_QUEUED = 16;
export const MAX_MAX_QUEUED = 2048;
/** Live byte cap per subscriber (charged bytes, see `SubscriberQueue`); overflow evicts. */
export const MAX_QUEUED_BYTES = 2 * 1024 * 1024;
/** Replay byte budget per subscription; past it the replay stops with `replay_budget_exceeded`. */
export const REPLAY_BYTE_BUDGET = 8 * 1024 * 1024;
/**
 * Byte bound of a session's replay ring (beside `--event-ring-size` frames); past it the oldest
 * frames are dropped, but never the newest. Twice the replay budget, so after a frame as large as
 * the budget the ring still holds a full replay.
 */
export const RING_MAX_BYTES = 2 * REPLAY_BYTE_BUDGET;

/**
 * Where a bus records its frames before releasing them. `record` calls `done(true)` once the frame
 * is safe, or `done(false)` once recording has given up on it (delivery never waits on a broken
 * disk), and calls it for one bus's frames in the order they were recorded. Its pending queue is
 * its bound on the frames a bus holds.
 */
export interface EventJournal {
  record(epoch: string, frame: Frame, done: (recorded: boolean) => void): void;
  /**
   * The notice that recording stopped, released ahead of the frames it gave up on:
   * `firstUnrecordedId` is the id of the first of them (the notice's own is one less), `unrecorded`
   * how many of them are published so far (they follow the notice).
   */
  stopNotice(firstUnrecordedId: number, unrecorded: number): { readonly type: string; readonly data: unknown };
  /** Records a released notice: it took the id of the first frame recording gave up on, and those frames moved up by one. Never waits. */
  recordNotice(epoch: string, notice: Frame): void;
}

/** While recording is stopped, as this bus's clients were told: its notice, and the frames released unrecorded since. */
export interface RecordingStop {
  readonly noticeId: number;
  /** The first id after the notice: frames from it on went out unrecorded. */
  readonly firstUnrecordedId: number;
  /** How many frames went out unrecorded after the notice so far. */
  unrecorded: number;
}

export interface BusOptions {
  readonly ringSize: number;
  /** Subscribers per session; past it `subscribe` returns null. */
  readonly maxSubscribers: number;
  readonly now?: () => number;
  readonly epoch?: string;
  readonly journal?: EventJournal;
}

export interface SubscribeOptions extends ReplayRequest {
  readonly maxQueued?: number;
}

/**
 * One subscriber's view: the replay first (read lazily from the ring), then live frames, until it
 * ends. Its writer pulls batches with `next`; whether the writer is waiting decides whether a
 * published frame is owed or charged (see `SubscriberQueue`).
 */
export class Subscription {
  private replay: ReplayCursor | null;
  /** A replay frame taken from the cursor that did not fit in the last batch. */
  private replayHead: Frame | null = null;
  private readonly queue: SubscriberQueue;
  private final: Frame | null = null;
  /** open → accepting frames; ending → delivering what is left, then done. */
  private state: "open" | "ending" = "open";
  /** Wakes a writer that waits for frames. */
  private waiter: (() => void) | null = null;
  /** The writer waits for data: from finding nothing to take until it takes again (wakeup included). */
  private writerWaiting = false;

  constructor(
    private readonly bus: EventBus,
    replay: ReplayCursor | null,
    maxQueued: number,
  ) {
    this.replay = replay;
    this.queue = new SubscriberQueue(maxQueued, MAX_QUEUED_BYTES);
  }

  /** True once no further frames will be accepted. */
  get ended(): boolean {
    return this.state !== "open";
  }

  /**
   * Resolves with the next batch to write, or null once the subscription is over. A batch is at
   * most `maxBytes` (but always at least one frame), in order: replay, then live frames, then the
   * eviction notice if there is one.
   */
  async next(maxBytes = Infinity): Promise<Frame[] | null> {
    for (;;) {
      const batch = this.take(maxBytes);
      if (batch !== null) return batch;
      if (this.state !== "open") return null;
      this.writerWaiting = true;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
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
    this.replay = null;
    this.replayHead = null;
    this.queue.clear();
    this.final = null;
    this.end();
  }

  /** @internal called by the bus for each published frame. */
  offer(frame: Frame): void {
    if (this.state !== "open") return;
    const result = this.queue.offer(frame, this.writerWaiting);
    if (result.kind === "overflow") {
      // What is queued (the warning included) still goes out, then the eviction: a client that
      // reconnects with Last-Event-ID = droppedAfter loses nothing the ring still holds.
      this.final = this.bus.synthetic("client_evicted", {
        reason: result.reason,
        droppedAfter: frame.id! - 1,
        queueSize: this.queue.chargedFrames,
        maxQueued: this.queue.maxQueued,
        queuedBytes: this.queue.chargedBytes,
        maxQueuedBytes: this.queue.maxQueuedBytes,
        eventBytes: frame.bytes,
      } satisfies EventData<"client_evicted">);
      this.end();
      return;
    }
    if (result.kind === "warn") {
      // The warning goes in right behind the frame that crossed the mark.
      this.queue.offer(
        this.bus.synthetic("slow_client_warning", {
          queueSize: this.queue.chargedFrames,
          maxQueued: this.queue.maxQueued,
          lastEventId: this.bus.lastId,
          queuedBytes: this.queue.chargedBytes,
          maxQueuedBytes: this.queue.maxQueuedBytes,
          threshold: result.threshold,
        } satisfies EventData<"slow_client_warning">),
        false,
      );
    }
    this.wake();
  }

  private take(maxBytes: number): Frame[] | null {
    this.writerWaiting = false;
    const out: Frame[] = [];
    let bytes = 0;
    /** Whether `frame` joins the batch: the first one always does, the rest while they fit. */
    const fits = (frame: Frame) => out.length === 0 || bytes + frame.bytes <= maxBytes;
    for (let frame = this.nextReplayFrame(); frame !== null; frame = this.nextReplayFrame()) {
      if (!fits(frame)) return out;
      out.push(frame);
      bytes += frame.bytes;
      this.replayHead = null;
    }
    for (let frame = this.queue.peek(); frame !== undefined; frame = this.queue.peek()) {
      if (!fits(frame)) return out;
      out.push(this.queue.shift()!);
      bytes += frame.bytes;
    }
    if (this.final !== null && fits(this.final)) {
      out.push(this.final);
      this.final = null;
    }
    return out.length === 0 ? null : out;
  }

  /** The next replay frame (held in `replayHead` until taken), or null once the replay is over. */
  private nextReplayFrame(): Frame | null {
    if (this.replayHead === null && this.replay !== null) {
      const step = this.replay.next();
      if (step === null) this.replay = null;
      else this.replayHead = "frame" in step ? step.frame : this.bus.synthetic(step.type, step.data);
    }
    return this.replayHead;
  }

  private wake(): void {
    const resolve = this.waiter;
    if (resolve === null) return;
    this.waiter = null;
    resolve();
  }
}

export class EventBus {
  readonly epoch: string;
  private readonly ring: ReplayRing;
  private readonly subscribers = new Set<Subscription>();
  private readonly now: () => number;
  private nextId = 1;
  /** Id of the newest frame released to the ring and subscribers. */
  private releasedId = 0;
  /** Frames published but not yet durable, oldest first (bounded by the journal's pending queue). */
  private readonly held: Frame[] = [];
  /** Set from the stop notice until a frame is recorded again (or `recordingResumed`). */
  private stop: RecordingStop | null = null;
  private isClosed = false;

  constructor(private readonly options: BusOptions) {
    this.epoch = options.epoch ?? crypto.randomUUID();
    this.ring = new ReplayRing(options.ringSize, RING_MAX_BYTES);
    this.now = options.now ?? Date.now;
  }

  /** Id of the newest event released to subscribers (0 before the first). */
  get lastId(): number {
    return this.releasedId;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Publishes an id-carrying event to the ring and every subscriber (once durable, with a journal);
   * null once the bus is closed. Throws `EventEncodeError` (having published nothing) when `data`
   * cannot be encoded; never throws on behalf of a subscriber.
   */
  publish(type: string, data: unknown, fields?: EnvelopeFields): Frame | null {
    if (this.isClosed) return null;
    const frame = encodeFrame(this.nextId, type, data, fields, this.now());
    this.nextId++;
    const journal = this.options.journal;
    if (journal === undefined) {
      this.release(frame);
      return frame;
    }
    this.held.push(frame);
    journal.record(this.epoch, frame, (recorded) => this.settled(recorded));
    return frame;
  }

  /**
   * Tells this bus's clients now that recording stopped, unless they were told already (`again`:
   * even so, when what they were told changed). While frames are held it waits for the first that
   * comes back unrecorded, so the notice names it (those still held may yet be recorded), unless
   * `again`: then it goes ahead of them.
   */
  recordingStopped(again = false): void {
    if (this.options.journal === undefined) return;
    if (!again && (this.stop !== null || this.held.length > 0)) return;
    this.tellStopped();
  }

  /** Recording works again: what the stop cost (null when no stop was told), and the next unrecorded frame is told anew. */
  recordingResumed(): RecordingStop | null {
    const stop = this.stop;
    this.stop = null;
    return stop;
  }

  /** The journal's answer for the oldest held frame (answers come in order): released, behind a stop notice if it went unrecorded. */
  private settled(recorded: boolean): void {
    if (recorded) this.stop = null;
    else if (this.stop === null) this.tellStopped();
    const frame = this.held.shift()!;
    if (!recorded) this.stop!.unrecorded++;
    this.release(frame);
  }

  /**
   * Releases the journal's stop notice ahead of every held frame: it takes the oldest held frame's
   * id (or the next one), and the held frames move up by one.
   */
  private tellStopped(): void {
    const journal = this.options.journal!;
    const id = this.held[0]?.id ?? this.nextId;
    for (let i = 0; i < this.held.length; i++) this.held[i] = renumberFrame(this.held[i]!, id + 1 + i);
    this.nextId++;
    const { type, data } = journal.stopNotice(id + 1, this.held.length);
    const notice = encodeFrame(id, type, data, {}, this.now());
    journal.recordNotice(this.epoch, notice);
    this.stop = { noticeId: id, firstUnrecordedId: id + 1, unrecorded: 0 };
    this.release(notice);
  }

  /** An id-less frame (never stored, never consumes an id). */
  synthetic(type: string, data: unknown): Frame {
    return encodeFrame(undefined, type, data, {}, this.now());
  }

  /**
   * Registers a subscriber. The replay cursor (per the request's Last-Event-ID and epoch) is
   * opened at the current last id and the subscriber attached in one synchronous step, so nothing
   * is lost or doubled in between. Returns null when the session already has `maxSubscribers`.
   */
  subscribe(options: SubscribeOptions): Subscription | null {
    if (this.subscribers.size >= this.options.maxSubscribers) return null;
    const replay = ReplayCursor.open(options, { epoch: this.epoch, lastId: this.lastId, ring: this.ring, budgetBytes: REPLAY_BYTE_BUDGET });
    const sub = new Subscription(this, replay, options.maxQueued ?? DEFAULT_MAX_QUEUED);
    if (this.isClosed && this.held.length === 0) sub.end();
    else this.subscribers.add(sub);
    return sub;
  }

  /**
   * Refuses further publishes and ends every subscription once it has delivered what it holds
   * (frames still held for the journal go out first).
   */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.held.length === 0) this.endSubscriptions();
  }

  private release(frame: Frame): void {
    this.releasedId = frame.id!;
    this.ring.push(frame);
    for (const sub of this.subscribers) sub.offer(frame);
    if (this.isClosed && this.held.length === 0) this.endSubscriptions();
  }

  private endSubscriptions(): void {
    for (const sub of [...this.subscribers]) sub.end();
  }

  /** @internal */
  detach(sub: Subscription): void {
    this.subscribers.delete(sub);
  }
}
