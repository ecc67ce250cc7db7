/**
 * The daemon-wide journal growth pool (rule: config/config.ts, beside the baseline constants): bytes
 * a load's replay may hold past the baseline byte cap. A load borrows what is free, up to
 * MAX_GROWTH_PER_LOAD_BYTES, shrinks its lease to what its replay used past the baseline, and
 * releases it when its reply has been sent. When the pool is empty a load borrows nothing and gets
 * the baseline: nothing waits, nothing fails.
 */

/**
 * Most bytes one load borrows: with the 8 MiB baseline a replay holds at most 64 MiB of envelopes,
 * the size of the largest export (`MAX_EXPORT_BYTES`), so one load cannot take the whole pool of a
 * large budget.
 */
export const MAX_GROWTH_PER_LOAD_BYTES = 56 * 1024 * 1024;

/** Bytes borrowed from the pool; `release` is idempotent. */
export interface GrowthLease {
  readonly bytes: number;
  /** Keeps `bytes` (no more than held) and hands the rest back now. */
  shrink(bytes: number): void;
  release(): void;
}

export class JournalGrowthPool {
  private borrowed = 0;

  /** `capacityBytes` 0: growth disabled (a journal cap was pinned). */
  constructor(readonly capacityBytes: number) {}

  get available(): number {
    return this.capacityBytes - this.borrowed;
  }

  /** Lends up to `wanted` bytes (capped per load), as much as is free now, possibly none. */
  borrow(wanted: number): GrowthLease {
    let held = Math.max(0, Math.min(wanted, MAX_GROWTH_PER_LOAD_BYTES, this.available));
    this.borrowed += held;
    const pool = this;
    return {
      get bytes() {
        return held;
      },
      shrink(bytes: number) {
        const kept = Math.max(0, Math.min(bytes, held));
        pool.borrowed -= held - kept;
        held = kept;
      },
      release() {
        this.shrink(0);
      },
    };
  }
}
