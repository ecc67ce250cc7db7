/**
 * Fixed-capacity ring of the most recent id-carrying frames of one session. Ids are contiguous, so
 * the frame with id N sits at a computable slot. Storage grows with use (an idle session costs
 * nothing) up to `capacity`; past that the oldest frame is overwritten.
 */
import type { Frame } from "./frame.ts";

export class ReplayRing {
  private readonly slots: Frame[] = [];
  /** Slot of the oldest frame once the ring has wrapped. */
  private start = 0;
  /** Id of the newest frame held (0 when empty). */
  private newest = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError("ring capacity must be >= 1");
  }

  get size(): number {
    return this.slots.length;
  }

  /** Id of the oldest retained frame, or null when empty. */
  get oldestId(): number | null {
    return this.slots.length === 0 ? null : this.newest - this.slots.length + 1;
  }

  push(frame: Frame): void {
    const id = frame.id!;
    if (this.slots.length > 0 && id !== this.newest + 1) throw new Error(`ring expects id ${this.newest + 1}, got ${id}`);
    if (this.slots.length < this.capacity) this.slots.push(frame);
    else {
      this.slots[this.start] = frame;
      this.start = (this.start + 1) % this.capacity;
    }
    this.newest = id;
  }

  /** Frames with id > afterId, oldest first. */
  *after(afterId: number): Generator<Frame> {
    const oldest = this.oldestId;
    if (oldest === null) return;
    for (let id = Math.max(afterId + 1, oldest); id <= this.newest; id++) yield this.slots[(this.start + id - oldest) % this.slots.length]!;
  }

  clear(): void {
    this.slots.length = 0;
    this.start = 0;
  }
}
