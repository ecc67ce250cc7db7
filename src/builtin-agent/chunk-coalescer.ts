/**
 * The model's text and reasoning deltas, gathered into fewer `agent_message_chunk` and
 * `agent_thought_chunk` notifications: a model that streams one byte per delta would otherwise
 * cost one notification, and one journaled daemon event, per byte. Deltas are buffered and sent
 * as one chunk when
 * - COALESCE_BYTES are buffered (the delta that reaches it waits until the chunk is out: the
 *   model stream is held back by a slow client as before);
 * - COALESCE_INTERVAL_MS passed since the first buffered delta (text still streams live);
 * - a delta of the other kind arrives (message and thought text keep their order);
 * - `flush` is called: the turn calls it at the end of every model round, so nothing buffered is
 *   sent after a tool call of that round or held past the turn's end.
 * Chunks go out one after another, in order; a chunk over MESSAGE_CHUNK_BYTES is several
 * notifications (`messageChunks`).
 */
import { MESSAGE_CHUNK_BYTES, messageChunks, utf8Bytes } from "./acp-bounds.ts";

/** Bytes buffered before a chunk is sent whatever the time: one notification's worth. */
export const COALESCE_BYTES = MESSAGE_CHUNK_BYTES;
/** Longest a delta waits in the buffer for others to join it. */
export const COALESCE_INTERVAL_MS = 25;

export type ChunkKind = "agent_message_chunk" | "agent_thought_chunk";

export class ChunkCoalescer {
  private kind: ChunkKind | null = null;
  private text = "";
  private bytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The chunks handed out so far, sent in order; rejects once one failed (the connection is gone). */
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly send: (kind: ChunkKind, text: string) => Promise<void>) {}

  /** Buffers a delta; resolves at once, or (past COALESCE_BYTES) once the chunk is out. */
  async add(kind: ChunkKind, delta: string): Promise<void> {
    if (delta === "") return;
    if (this.kind !== kind) this.handOut();
    this.kind = kind;
    this.text += delta;
    this.bytes += utf8Bytes(delta);
    if (this.bytes >= COALESCE_BYTES) return await this.flush();
    this.timer ??= setTimeout(() => this.handOut(), COALESCE_INTERVAL_MS);
  }

  /** Sends what is buffered; resolves once every chunk handed out is sent. */
  async flush(): Promise<void> {
    this.handOut();
    await this.sending;
  }

  /** Queues the buffered text as one chunk, after those before it. */
  private handOut(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { kind, text } = this;
    this.kind = null;
    this.text = "";
    this.bytes = 0;
    if (kind === null || text === "") return;
    this.sending = this.sending.then(async () => {
      for (const piece of messageChunks(text)) await this.send(kind, piece);
    });
    // A failure is reported to whoever awaits `flush` next, never as an unhandled rejection of the timer's hand-out.
    this.sending.catch(() => {});
  }
}
