/**
 * The wedge rule: when a child has stopped answering altogether. A child is judged wedged once
 * WEDGE_TIMEOUTS of the daemon's requests have timed out with no answer at all from it since the
 * first of them was sent, and WEDGE_SILENCE_MS (the window) have passed since that send. The
 * silence that counts is the child's silence towards a question: it starts when a request that
 * then timed out went out, never earlier, so an agent that was merely idle (nobody asked it
 * anything) carries no silence into its next requests, and requests sent together that time out
 * together reach no verdict before the window has passed since they were sent.
 *
 * Only an answer is a sign of life: a response to any of the daemon's requests, late or not, clears
 * the count, and a timed-out request sent before the child's last answer does not count. What a child
 * writes unasked (updates, requests of its own) is not: a child that stopped reading its input can
 * go on streaming, and would otherwise never be judged. When the count is reached, the rule asks
 * the child one question every live agent answers at once (`probe`: the channel sends a request
 * for a method no agent has, which a JSON-RPC peer that reads answers "method not found"): an
 * agent that is only slow to answer some requests (a `session/new` starting MCP servers for a
 * minute) answers it and is never judged wedged, however late its other answers come. Silence
 * alone is not enough either: an idle agent that nobody asks anything is not wedged. Which
 * requests count is the caller's choice (`acp-channel.ts`): reads the daemon can do without
 * (status views) do not.
 *
 * This catches what the stdin watchdog (`stdin-queue.ts`) cannot: a child that stopped reading with
 * less than a pipe's worth queued, so that every write still succeeds. The watchdog judges by the
 * same window and the same sign of life (`lastHeardAt`). The verdict is given once; the runtime
 * recycles the child (`workspace-runtime.ts`). Pure apart from one timer, which re-checks once the
 * window has passed when the count is reached before.
 */

export const WEDGE_TIMEOUTS = 3;
export const WEDGE_SILENCE_MS = 30_000;

export interface WedgeVerdict {
  /** Requests timed out since the child last answered, and their methods (the last few). */
  readonly timeouts: number;
  readonly methods: readonly string[];
  /** How long the child had been silent, counted from when the first of those requests was sent. */
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
  /** When the first counted request was sent: the silence is measured from here. */
  private firstSent = Number.POSITIVE_INFINITY;
  private methods: string[] = [];
  private cancelTimer: () => void = () => {};
  private probed = false;
  private done = false;

  /** `probe` asks the child something it answers at once if it reads at all; its answer comes back through `heard`. */
  constructor(
    private readonly onWedged: (verdict: WedgeVerdict) => void,
    private readonly probe: () => void = () => {},
    private readonly clock: WedgeClock = realClock,
  ) {
    this.lastHeard = clock.now();
  }

  /** When the child last answered a request, on the watch's clock (`performance.now()` unless a test's). */
  get lastHeardAt(): number {
    return this.lastHeard;
  }

  /** A request goes out now: what `timedOut` is given back should it time out (its send time). */
  sent(): number {
    return this.clock.now();
  }

  /** An answer to one of the daemon's requests came from the child. */
  heard(): void {
    this.lastHeard = this.clock.now();
    this.timeouts = 0;
    this.probed = false;
    this.firstSent = Number.POSITIVE_INFINITY;
    this.methods = [];
    this.cancelTimer();
  }

  /** A request sent at `sentAt` (what `sent()` gave) went unanswered within its deadline. */
  timedOut(method: string, sentAt: number): void {
    if (this.done || sentAt < this.lastHeard) return;
    this.timeouts++;
    this.firstSent = Math.min(this.firstSent, sentAt);
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
    if (!this.probed) {
      this.probed = true;
      this.probe();
    }
    const silentMs = this.clock.now() - this.firstSent;
    this.cancelTimer();
    if (silentMs < WEDGE_SILENCE_MS) {
      this.cancelTimer = this.clock.later(() => this.check(), WEDGE_SILENCE_MS - silentMs);
      return;
    }
    this.done = true;
    this.onWedged({ timeouts: this.timeouts, methods: this.methods, silentMs: Math.round(silentMs) });
  }
}
