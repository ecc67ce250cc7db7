/**
 * Watches a child's stdout on its way to the NDJSON reader, passing it on a whole line at a time.
 *
 * Stray output is metered: a line that cannot be JSON-RPC (not starting with `{`) and a JSON record
 * that is not a JSON-RPC message (see `isRpcMessage`) each spend one unit of the channel's
 * StrayOutputBudget; a child that overdraws it is cut off, which closes the channel. The odd stray
 * line over a long life (a library printing a warning now and then) never adds up to a kill.
 *
 * Lines over the frame bound (`maxLineBytes`, not counting the newline) are dropped in bounded
 * memory: once a line's held bytes pass the bound they are let go, and the rest of the line streams
 * through a LineOwnerScanner (`oversized-line.ts`) to its newline; then `onOversized` learns its size
 * and owner and may put a short line in its place (the channel's notice, `acp-channel.ts`). So a
 * line over the bound never reaches the SDK's reader, which would end the whole channel, and what
 * this guard holds is at most one line within the bound.
 */
import { LineOwnerScanner, type LineOwner } from "./oversized-line.ts";

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

export interface StdoutGuardHooks {
  /** The child broke the stray-output rule (`why`); the stream then errors. */
  onReject(why: string): void;
  /** A line of `bytes` bytes over the bound was dropped: the whole line (newline included) to pass on in its place, or null for none. */
  onOversized(bytes: number, owner: LineOwner): Uint8Array | null;
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

export function guardStdout(input: ReadableStream<Uint8Array>, budget: StrayOutputBudget, hooks: StdoutGuardHooks, maxLineBytes: number): ReadableStream<Uint8Array> {
  let atLineStart = true;
  /** The current line's bytes so far (copies; it has no newline yet), while within the bound. */
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  /** The line being dropped: its scanner and its length so far. */
  let dropping: { scanner: LineOwnerScanner; bytes: number } | null = null;

  /** Lets the held bytes go: from here the line only streams through the scanner. */
  const startDropping = () => {
    const scanner = new LineOwnerScanner();
    for (const part of held) scanner.push(part);
    dropping = { scanner, bytes: heldBytes };
    held = [];
    heldBytes = 0;
  };
  const endDropped = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const { scanner, bytes } = dropping!;
    dropping = null;
    const replacement = hooks.onOversized(bytes, scanner.owner());
    if (replacement) controller.enqueue(replacement);
  };

  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        /** Complete lines of this chunk not yet passed on: [runStart, at), passed on as one slice. */
        let runStart = 0;
        const passRun = (end: number) => {
          if (end > runStart) controller.enqueue(chunk.subarray(runStart, end));
        };
        for (let at = 0; at < chunk.length; ) {
          const nl = chunk.indexOf(NL, at);
          const end = nl === -1 ? chunk.length : nl;
          if (atLineStart && dropping === null) {
            let first = at;
            while (first < end && isBlank(chunk[first]!)) first++;
            if (first < end) {
              atLineStart = false;
              if (chunk[first] !== BRACE && !budget.spend()) {
                hooks.onReject(`non-JSON lines: ${STRAY_REJECTION}`);
                controller.error(new Error("agent wrote too much non-JSON output"));
                return;
              }
            }
          }
          if (dropping === null && heldBytes + (end - at) > maxLineBytes) {
            passRun(at);
            startDropping();
          }
          if (dropping !== null) {
            dropping.scanner.push(chunk.subarray(at, end));
            dropping.bytes += end - at;
            if (nl === -1) return;
            endDropped(controller);
          } else if (nl === -1) {
            passRun(at);
            held.push(chunk.slice(at));
            heldBytes += chunk.length - at;
            return;
          } else if (heldBytes > 0) {
            held.push(chunk.subarray(at, nl + 1));
            controller.enqueue(concat(held, heldBytes + nl + 1 - at));
            held = [];
            heldBytes = 0;
          } else {
            // A whole line in this chunk joins the run of lines passed on together.
            atLineStart = true;
            at = nl + 1;
            continue;
          }
          atLineStart = true;
          at = nl + 1;
          runStart = at;
        }
        passRun(chunk.length);
      },
      flush(controller) {
        if (dropping !== null) endDropped(controller);
        else if (heldBytes > 0) controller.enqueue(concat(held, heldBytes));
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
