/**
 * The byte stream towards a child's stdin, with a bounded queue. The ACP connection hands over one
 * message at a time and waits for each write; were the write to wait for the child to read, every
 * later message (prompts, cancels, permission answers from any session) would pile up in the
 * connection's promise chain for as long as the child does not read. Instead a write is accepted at
 * once into this queue, and one pump feeds the queue to the child's stdin at the pace it reads.
 *
 * Bound: MAX_STDIN_QUEUE_BYTES not yet taken by the child (the message in flight included). A
 * message that would pass it while something is already queued means the child has stopped reading:
 * it is treated as wedged. The write fails with StdinOverflowError, which closes the ACP connection
 * (every pending request fails with `acp_channel_unavailable`, naming the cause), and `onOverflow`
 * runs once, to end the child; its sessions end with `session_died` and the next session starts a
 * fresh child. A single message larger than the bound still goes through to a child that reads.
 */
import type { FileSink } from "bun";

export const MAX_STDIN_QUEUE_BYTES = 16 * 1024 * 1024;

export class StdinOverflowError extends Error {
  override readonly name = "StdinOverflowError";
  constructor(queued: number) {
    super(`the agent stopped reading its input (${queued} bytes waiting, limit ${MAX_STDIN_QUEUE_BYTES})`);
  }
}

export function stdinQueue(sink: FileSink, onOverflow: (error: StdinOverflowError) => void): WritableStream<Uint8Array> {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let pumping = false;
  let failed: Error | null = null;

  const pump = async () => {
    pumping = true;
    try {
      while (queue.length > 0 && failed === null) {
        const chunk = queue[0]!;
        sink.write(chunk);
        await sink.flush();
        queue.shift();
        queued -= chunk.byteLength;
      }
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
    } finally {
      pumping = false;
    }
  };

  return new WritableStream<Uint8Array>({
    write(chunk) {
      if (failed) throw failed;
      if (queued > 0 && queued + chunk.byteLength > MAX_STDIN_QUEUE_BYTES) {
        failed = new StdinOverflowError(queued + chunk.byteLength);
        onOverflow(failed as StdinOverflowError);
        throw failed;
      }
      queue.push(chunk);
      queued += chunk.byteLength;
      if (!pumping) void pump();
    },
    // Closing drops what the child has not taken yet: the channel is going away.
    close() {
      sink.end();
    },
  });
}
