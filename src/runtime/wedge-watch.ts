/**
 * The wedge rule: when a child has stopped answering altogether. A child is judged wedged once
 * WEDGE_TIMEOUTS of the daemon's requests have timed out in a row with no message of any kind from
 * it since the first of them, and it has been silent for at least WEDGE_SILENCE_MS (the window).
 * Any message from the child (an answer, late or not, an update, a request of its own) clears the
 * count, so a slow but live agent (answering other requests, streaming a turn) is never judged
 * wedged, however many of its answers come late; nor is one whose requests time out now and then.
 * Silence alone is not enough either: an idle agent that nobody asks anything is not wedged.
 *
 * This catches what the stdin watchdog (`stdin-queue.ts`) cannot: a child that stopped reading with
 * less than a pipe's worth queued, so that every write still succeeds. The verdict is given once;
 * the runtime recycles the child (`workspace-runtime.ts`). Pure apart from one timer, which
 * re-checks the silence when the count is reached before the window has passed.
 */

export const WEDGE_TIMEOUTS = 3;
export const WEDGE_SILENCE_MS = 30_000;

export interface WedgeVerdict {
  /** Requests timed out since the child was last heard from, and their methods (the last few). */
  readonly timeouts: number;
  readonly methods: readonly string[];
  /** How long the child had been silent. */
  readonly silentMs: number;
}

/** Methods named in a verdict. */
const METHODS_KEPT = WEDGE_TIMEOUTS;

/** The clock and the timer (tests pass their own). */
export interface WedgeClock {
  now(): number;
  /** Runs `fn` after `ms`; returns what cancels it. */
  later(fn: () => void, ms: number): () => void;
}

const realClock: WedgeClock = {
  now: () => performance.now(),
  later(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export class WedgeWatch {
  private lastHeard: number;
  private timeouts = 0;
  private methods: string[] = [];
  private cancelTimer: () => void = () => {};
  private done = false;

  constructor(
    private readonly onWedged: (verdict: WedgeVerdict) => void,
    private readonly clock: WedgeClock = realClock,
  ) {
    this.lastHeard = clock.now();
  }

  /** A message came from the child. */
  heard(): void {
    this.lastHeard = this.clock.now();
    this.timeouts = 0;
    this.methods = [];
    this.cancelTimer();
  }

  /** A request to the child went unanswered within its deadline. */
  timedOut(method: string): void {
    if (this.done) return;
    this.timeouts++;
    this.methods = [...this.methods, method].slice(-METHODS_KEPT);
    this.check();
  }

  /** The channel is gone: no verdict from now on. */
  close(): void {
    this.done = true;
    this.cancelTimer();
  }

  private check(): void {
    if (this.done || this.timeouts < WEDGE_TIMEOUTS) return;
    const silentMs = this.clock.now() - this.lastHeard;
    this.cancelTimer();
    if (silentMs < WEDGE_SILENCE_MS) {
      this.cancelTimer = this.clock.later(() => this.check(), WEDGE_SILENCE_MS - silentMs);
      return;
    }
    this.done = true;
    this.onWedged({ timeouts: this.timeouts, methods: this.methods, silentMs: Math.round(silentMs) });
  }
}
