/**
 * A journal chunk (migrations.ts, version 5): a run of one session epoch's events with consecutive
 * ids, stored as one row. What a commit costs is pages written (to the log, then to the file), so
 * the writer (journal-writer.ts) puts a session's events of one commit into as few rows as these
 * bounds allow, and compresses a chunk once that pays: a flat-out tick's ~50 envelopes of ~250
 * characters fit one page instead of four (`bun bench/journal-writer.ts`).
 *
 * A record's place in the journal is one number, `position`: the chunk's `seq` times
 * `POSITION_STRIDE`, plus the record's index in the chunk. Positions order a session's records as
 * `seq` orders its chunks, and a page of records can end, and the next begin, inside a chunk.
 *
 * Envelopes are one line of JSON, so "\n" separates them; one that holds a line break anyway (none
 * does today) is written as a chunk of its own, which is never split.
 */

/**
 * node:zlib (with node:stream under it) takes ~10 ms to load, on the first session's path if it were
 * imported with the store: chunks are compressed by Bun's own zstd (no module), and node:zlib, whose
 * decompressor bounds its output, is taken from the runtime on the first compressed chunk read.
 */
const zlib = () => process.getBuiltinModule("node:zlib");

/**
 * Most events in one chunk. A chunk is read whole, so this bounds what a reader decodes for one
 * record; past it (or past `MAX_CHUNK_CHARS`) the writer starts another chunk.
 */
export const MAX_CHUNK_EVENTS = 256;

/** Most envelope characters in one chunk; an envelope larger on its own is a chunk of one. */
export const MAX_CHUNK_CHARS = 256 * 1024;

/** Positions per chunk: room for every index `MAX_CHUNK_EVENTS` allows. */
export const POSITION_STRIDE = 4096;

/** Chunks smaller than this (characters) are kept as text: compressing them saves less than a page. */
export const COMPRESS_FROM_CHARS = 1024;

/** zstd's fastest level: a tick's chunk is compressed on the event loop. */
const ZSTD_LEVEL = 1;

/** `encoding` values (migrations.ts, version 5). */
export const TEXT = 0;
export const ZSTD = 1;

/** Where a record sits: `seq` of its chunk and its index there, as one number. */
export function position(seq: number, index: number): number {
  return seq * POSITION_STRIDE + index;
}

/** The chunk `seq` that holds `position`. */
export function chunkOf(position: number): number {
  return Math.floor(position / POSITION_STRIDE);
}

/** A chunk's stored form: `encoding` and `body` for the row. */
export function encodeChunk(envelopes: readonly string[], chars: number): { encoding: number; body: string | Uint8Array } {
  const text = envelopes.join("\n");
  if (chars < COMPRESS_FROM_CHARS) return { encoding: TEXT, body: text };
  const utf8 = Buffer.from(text, "utf8");
  const compressed = Bun.zstdCompressSync(utf8, { level: ZSTD_LEVEL });
  // Data that does not compress (already dense, or random) is kept as it is.
  return compressed.length < utf8.length ? { encoding: ZSTD, body: compressed } : { encoding: TEXT, body: text };
}

/** A chunk that cannot be read back as it was written (the file was changed or damaged outside svc). */
export class CorruptChunkError extends Error {
  override readonly name = "CorruptChunkError";
  constructor(
    readonly seq: number,
    reason: string,
  ) {
    super(`journal chunk ${seq} is damaged: ${reason}`);
  }
}

/** The chunk's envelopes, in order; `CorruptChunkError` when they are not what its row says. */
export function decodeChunk(seq: number, encoding: number, body: unknown, count: number, chars: number): string[] {
  let text: string;
  if (encoding === TEXT && typeof body === "string") text = body;
  else if (encoding === ZSTD && body instanceof Uint8Array) {
    // The row says how large the text is: UTF-8 takes at most 3 bytes per UTF-16 unit, plus the
    // separators. A frame that inflates past that is refused before it is held (a zstd bomb).
    const maxBytes = 3 * chars + count;
    try {
      text = zlib().zstdDecompressSync(body, { maxOutputLength: Math.max(maxBytes, 1) }).toString("utf8");
    } catch (error) {
      throw new CorruptChunkError(seq, error instanceof Error ? error.message : String(error));
    }
  } else throw new CorruptChunkError(seq, `encoding ${encoding} with a ${typeof body} body`);
  // A chunk of one is its envelope whole, line breaks and all.
  const envelopes = count === 1 ? [text] : text.split("\n");
  if (envelopes.length !== count) throw new CorruptChunkError(seq, `${envelopes.length} envelopes where the row says ${count}`);
  return envelopes;
}
