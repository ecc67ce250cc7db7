/**
 * Fixed-capacity ring of the most recent id-carrying frames of one session. Ids are contiguous, so
 * the frame with id N sits at a computable slot. Overflow: the oldest frame is overwritten.
 */
import type { Frame } from "./frame.ts";

export class ReplayRing {
  private readonly slots: (Frame | undefined)[];
  private count = 0;
  /** Id of the newest frame held (0 when empty). */
  private newest = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError("ring capacity must be >= 1");
    this.slots = new Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Id of the oldest retained frame, or null when empty. */
  get oldestId(): number | null {
    return this.count === 0 ? null : this.newest - this.count + 1;
  }

  push(frame: Frame): void {
    const id = frame.id!;
    if (this.count > 0 && id !== this.newest + 1) throw new Error(`ring expects id ${this.newest + 1}, got ${id}`);
    this.slots[id % this.capacity] = frame;
    this.newest = id;
    if (this.count < this.capacity) this.count++;
  }

  /** Frames with id > afterId, oldest first. */
  *after(afterId: number): Generator<Frame> {
    const oldest = this.oldestId;
    if (oldest === null) return;
    for (let id = Math.max(afterId + 1, oldest); id <= this.newest; id++) yield this.slots[id % this.capacity]!;
  }

  clear(): void {
    this.slots.fill(undefined);
    this.count = 0;
  }
}
