/**
 * The byte stream towards a child's stdin, with a bounded queue and a stall watchdog. The ACP
 * connection hands over one message at a time and waits for each write; were the write to wait for
 * the child to read it, every later message (prompts, cancels, permission answers from any session)
 * would wait behind it. Instead a write is accepted at once into this queue, and one pump feeds the
 * queue to the child's stdin, STDIN_SLICE_BYTES at a time, at the pace the child reads.
 *
 * A child is judged wedged by lack of progress, never by how much is waiting: while bytes are
 * waiting, none has been taken and no answer has come from the child (`lastHeard`) for STDIN_STALL_MS,
 * the queue fails with StdinStalledError, which closes the ACP connection (every pending request
 * fails with `acp_channel_unavailable`, naming the cause), and `onStall` runs once, to end the
 * child; its sessions end with `session_died` and the next session starts a fresh child. A child
 * that keeps reading is never ended, however much its sessions send at once; nor one that still
 * answers; nor, within the window, one busy with a long computation (its event loop held, it reads
 * and writes nothing). The window and the sign of life are the wedge rule's (`wedge-watch.ts`):
 * the daemon judges a child by one measure of silence whichever way it notices it. Waiting that
 * long costs no memory: the queue is bounded in bytes (below).
 *
 * Bound: MAX_STDIN_QUEUE_BYTES held here, not yet taken by the child. A write that leaves more than
 * that waiting is accepted, but resolves only once the queue drains back under the bound
 * (backpressure): the connection's later messages wait in its own write chain meanwhile, each one an
 * HTTP request the daemon already admitted, and they go out as the child reads, or fail when the
 * watchdog ends a child that stopped. So this queue holds at most the bound plus one message.
 */
import type { FileSink } from "bun";
import { WEDGE_SILENCE_MS } from "./wedge-watch.ts";

export const MAX_STDIN_QUEUE_BYTES = 16 * 1024 * 1024;
/** How long bytes may wait with none taken and no answer from the child before it counts as no longer reading its input. */
export const STDIN_STALL_MS = WEDGE_SILENCE_MS;
/** One write to the pipe; progress is seen per slice (the size of a common pipe buffer). */
const STDIN_SLICE_BYTES = 64 * 1024;

export class StdinStalledError extends Error {
  override readonly name = "StdinStalledError";
  constructor(waiting: number, stallMs: number) {
    super(`the agent stopped reading its input (${waiting} bytes waiting, none taken and no answer from it for ${stallMs} ms)`);
  }
}

export interface StdinQueueOptions {
  /** Defaults to STDIN_STALL_MS; tests pass a shorter one. */
  readonly stallMs?: number;
  /** When the child last wrote a message (`performance.now()` time); by default never. */
  readonly lastHeard?: () => number;
}

export function stdinQueue(
  sink: Pick<FileSink, "write" | "flush" | "end">,
  onStall: (error: StdinStalledError) => void,
  options: StdinQueueOptions = {},
): WritableStream<Uint8Array> {
  const stallMs = options.stallMs ?? STDIN_STALL_MS;
  const lastHeard = options.lastHeard ?? (() => Number.NEGATIVE_INFINITY);
  const queue: Uint8Array[] = [];
  let queued = 0;
  let pumping = false;
  let failed: Error | null = null;
  /** The one write held back until the queue is under the bound again (or the queue fails). */
  let drained: PromiseWithResolvers<void> | null = null;
  /** When the child last took a slice (or the pump started); the watchdog runs while the pump does, from this or the child's last message, whichever is later. */
  let progressAt = 0;
  let watchdog: ReturnType<typeof setTimeout> | undefined;

  const fail = (error: Error) => {
    failed ??= error;
    clearTimeout(watchdog);
    drained?.reject(failed);
    drained = null;
  };
  const watch = (delayMs: number) => {
    watchdog = setTimeout(() => {
      if (failed || !pumping) return;
      const idleMs = performance.now() - Math.max(progressAt, lastHeard());
      if (idleMs < stallMs) return watch(stallMs - idleMs);
      const error = new StdinStalledError(queued, stallMs);
      fail(error);
      onStall(error);
    }, delayMs);
    watchdog.unref();
  };

  const pump = async () => {
    pumping = true;
    progressAt = performance.now();
    watch(stallMs);
    try {
      while (queue.length > 0 && failed === null) {
        const chunk = queue[0]!;
        for (let at = 0; at < chunk.byteLength && failed === null; at += STDIN_SLICE_BYTES) {
          const slice = chunk.subarray(at, at + STDIN_SLICE_BYTES);
          sink.write(slice);
          await sink.flush();
          queued -= slice.byteLength;
          progressAt = performance.now();
          if (drained && queued <= MAX_STDIN_QUEUE_BYTES) {
            drained.resolve();
            drained = null;
          }
        }
        queue.shift();
      }
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      pumping = false;
      clearTimeout(watchdog);
    }
  };

  return new WritableStream<Uint8Array>({
    async write(chunk) {
      if (failed) throw failed;
      queue.push(chunk);
      queued += chunk.byteLength;
      if (!pumping) void pump();
      if (queued <= MAX_STDIN_QUEUE_BYTES) return;
      drained ??= Promise.withResolvers<void>();
      await drained.promise;
    },
    // Closing drops what the child has not taken yet: the channel is going away.
    close() {
      fail(new Error("stdin closed"));
      sink.end();
    },
  });
}
