/**
 * The daemon's memory use as `/daemon/status` reports it: sampled on a timer, never read per
 * request (Bun reads it from /proc, which costs more than the rest of the snapshot together).
 *
 * The timer runs only while status is being read: the first read after a quiet spell takes a
 * sample at once and starts it; after IDLE_TICKS_BEFORE_STOP ticks without a read it stops. So an
 * app that nobody asks holds no timer, and the timer is unref'd: it never keeps the process alive.
 * A sample that cannot be taken (the process is out of file descriptors) is null; the snapshot
 * then says so, it never fails.
 */

/** The process's memory use; null members in the snapshot when it could not be read. */
export interface ProcessMemory {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

/** How old a reported sample may be. */
export const MEMORY_SAMPLE_INTERVAL_MS = 1_000;
/** Ticks without a status read after which the timer stops (the next read restarts it). */
const IDLE_TICKS_BEFORE_STOP = 60;

export function readProcessMemory(): ProcessMemory | null {
  try {
    const { rss, heapUsed } = process.memoryUsage();
    return { rssBytes: rss, heapUsedBytes: heapUsed };
  } catch {
    return null;
  }
}

export interface MemorySamplerOptions {
  readonly read?: () => ProcessMemory | null;
  readonly intervalMs?: number;
  readonly idleTicksBeforeStop?: number;
}

export class MemorySampler {
  private sample: ProcessMemory | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private idleTicks = 0;
  private readonly read: () => ProcessMemory | null;
  private readonly intervalMs: number;
  private readonly idleTicksBeforeStop: number;

  constructor(options: MemorySamplerOptions = {}) {
    this.read = options.read ?? readProcessMemory;
    this.intervalMs = options.intervalMs ?? MEMORY_SAMPLE_INTERVAL_MS;
    this.idleTicksBeforeStop = options.idleTicksBeforeStop ?? IDLE_TICKS_BEFORE_STOP;
  }

  /** The latest sample (taken now only when the timer was not running). */
  current(): ProcessMemory | null {
    this.idleTicks = 0;
    if (this.timer === null) {
      this.sample = this.read();
      this.timer = setInterval(() => this.tick(), this.intervalMs);
      this.timer.unref();
    }
    return this.sample;
  }

  private tick(): void {
    if (++this.idleTicks > this.idleTicksBeforeStop) {
      clearInterval(this.timer!);
      this.timer = null;
      return;
    }
    this.sample = this.read();
  }
}
