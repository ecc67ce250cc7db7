/**
 * The most recent id-carrying frames of one session, bounded twice: at most `capacity` frames and
 * at most `maxBytes` encoded bytes. Past either bound the oldest frames are dropped, except the
 * newest one, which stays whatever its size (so a reconnect can still fetch the last event).
 * Ids are contiguous, so the frame with id N sits at a computable slot. Storage grows with use (an
 * idle session costs nothing) up to `capacity` slots.
 */
import type { Frame } from "./frame.ts";

/** Slots allocated at the first push; the backing array doubles from there up to `capacity`. */
const INITIAL_SLOTS = 16;

export class ReplayRing {
  private slots: (Frame | undefined)[] = [];
  /** Slot of the oldest frame. */
  private start = 0;
  private count = 0;
  private heldBytes = 0;
  /** Id of the newest frame held (0 before the first push). */
  private newest = 0;

  constructor(
    readonly capacity: number,
    readonly maxBytes: number,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError("ring capacity must be >= 1");
    if (!(maxBytes >= 1)) throw new RangeError("ring byte bound must be >= 1");
  }

  get size(): number {
    return this.count;
  }

  /** Encoded bytes of the frames held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Id of the oldest retained frame, or null when empty. */
  get oldestId(): number | null {
    return this.count === 0 ? null : this.newest - this.count + 1;
  }

  push(frame: Frame): void {
    const id = frame.id!;
    if (this.count > 0 && id !== this.newest + 1) throw new Error(`ring expects id ${this.newest + 1}, got ${id}`);
    if (this.count === this.slots.length) {
      if (this.slots.length < this.capacity) this.grow();
      else this.dropOldest();
    }
    this.slots[(this.start + this.count) % this.slots.length] = frame;
    this.count++;
    this.heldBytes += frame.bytes;
    this.newest = id;
    while (this.count > 1 && this.heldBytes > this.maxBytes) this.dropOldest();
  }

  /** The frame with `id`, or undefined when it is not (or no longer) held. */
  at(id: number): Frame | undefined {
    const oldest = this.oldestId;
    if (oldest === null || id < oldest || id > this.newest) return undefined;
    return this.slots[(this.start + id - oldest) % this.slots.length];
  }

  private dropOldest(): void {
    this.heldBytes -= this.slots[this.start]!.bytes;
    this.slots[this.start] = undefined;
    this.start = (this.start + 1) % this.slots.length;
    this.count--;
  }

  /** Re-lays the held frames oldest first into a larger backing array. */
  private grow(): void {
    const next: (Frame | undefined)[] = new Array(Math.min(this.capacity, Math.max(INITIAL_SLOTS, this.slots.length * 2)));
    for (let i = 0; i < this.count; i++) next[i] = this.slots[(this.start + i) % this.slots.length];
    this.slots = next;
    this.start = 0;
  }
}
