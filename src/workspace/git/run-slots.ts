/**
 * How many `git` processes the views run at once (one daemon's views share one `RunSlots`): at
 * most MAX_CONCURRENT_RUNS; further runs wait in order, at most MAX_WAITING_RUNS of them, and one
 * past that is refused (503 `git_busy`, Retry-After), so a burst of requests cannot fill the
 * process table or queue without end. A waiting run whose signal aborts leaves the queue (503
 * `git_cancelled`, to a client that is gone).
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import type { RunGit } from "./git-run.ts";

export const MAX_CONCURRENT_RUNS = 8;
export const MAX_WAITING_RUNS = 256;

const cancelled = () => new DaemonError(503, "git_cancelled", "the request was abandoned before git ran");

export class RunSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxRunning = MAX_CONCURRENT_RUNS,
    private readonly maxWaiting = MAX_WAITING_RUNS,
  ) {}

  /** `run` taking a slot for each call. */
  limit(run: RunGit): RunGit {
    return async (args, options) => {
      await this.acquire(options.signal);
      try {
        return await run(args, options);
      } finally {
        this.release();
      }
    };
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> | void {
    if (signal?.aborted) throw cancelled();
    if (this.running < this.maxRunning) {
      this.running++;
      return;
    }
    if (this.waiting.length >= this.maxWaiting) throw new DaemonError(503, "git_busy", "too many git views are being computed; retry shortly", {}, 1);
    return new Promise((resolve, reject) => {
      const granted = () => {
        signal?.removeEventListener("abort", abandoned);
        resolve();
      };
      const abandoned = () => {
        const at = this.waiting.indexOf(granted);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(cancelled());
      };
      signal?.addEventListener("abort", abandoned, { once: true });
      this.waiting.push(granted);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter, so `running` does not change.
    if (next) next();
    else this.running--;
  }
}
