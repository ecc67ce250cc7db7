/**
 * Watches a child's stdout on its way to the NDJSON reader without reframing it: bytes pass
 * through unchanged, but stray output is metered. A line that cannot be JSON-RPC (not starting with
 * `{`) and a JSON record that is not a JSON-RPC message (see `isRpcMessage`) each spend one unit of
 * the channel's StrayOutputBudget; a child that overdraws it is cut off, which closes the channel.
 * The SDK already drops a single line over its message cap; this bounds the other way a child can
 * keep us busy, while the odd stray line over a long life (a library printing a warning now and
 * then) never adds up to a kill.
 */

/** Stray lines a child may write in one burst. */
export const STRAY_BURST_LINES = 200;
/** Stray lines per second a child may keep writing indefinitely. */
export const STRAY_LINES_PER_SECOND = 20;

/**
 * A token bucket of stray output: it holds STRAY_BURST_LINES units, refills at
 * STRAY_LINES_PER_SECOND, and each stray line takes one. Empty means the child is flooding us.
 */
export class StrayOutputBudget {
  private units = STRAY_BURST_LINES;
  private last: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.last = now();
  }

  /** Takes one unit; false when the budget is exhausted (the child must be cut off). */
  spend(): boolean {
    const now = this.now();
    this.units = Math.min(STRAY_BURST_LINES, this.units + ((now - this.last) / 1000) * STRAY_LINES_PER_SECOND);
    this.last = now;
    if (this.units < 1) return false;
    this.units -= 1;
    return true;
  }
}

export const STRAY_REJECTION = `more than ${STRAY_BURST_LINES} stray lines at once, or more than ${STRAY_LINES_PER_SECOND} a second`;

const NL = 0x0a;
const BRACE = 0x7b;
const isBlank = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;

export function guardStdout(input: ReadableStream<Uint8Array>, budget: StrayOutputBudget, onReject: (why: string) => void): ReadableStream<Uint8Array> {
  let atLineStart = true;
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let i = 0;
        while (i < chunk.length) {
          if (atLineStart) {
            while (i < chunk.length && isBlank(chunk[i]!)) i++;
            if (i === chunk.length) break;
            if (chunk[i] !== BRACE && chunk[i] !== NL && !budget.spend()) {
              onReject(`non-JSON lines: ${STRAY_REJECTION}`);
              controller.error(new Error("agent wrote too much non-JSON output"));
              return;
            }
            atLineStart = false;
          }
          const nl = chunk.indexOf(NL, i);
          if (nl === -1) break;
          atLineStart = true;
          i = nl + 1;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * True for a JSON-RPC message: a request or notification (`method`), or a response (`id` with
 * `result` or `error`). Other JSON records from a child are dropped unanswered and spend the stray
 * budget like non-JSON lines: the SDK would answer each with an error that echoes the record back,
 * an unbounded write queue towards a child that may not be reading.
 */
export function isRpcMessage(message: unknown): boolean {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return typeof m.method === "string" || ("id" in m && ("result" in m || "error" in m));
}
