/**
 * Reads a session's journal back: pages in order for `/transcript` and `/export`, and the newest
 * events for a restore's replay. Read-only; never touches what the writer has pending.
 *
 * Rows are chunks (journal-chunk.ts); records come out one per event, each with its `position`, so
 * a page may end inside a chunk and the next one begin there. A chunk is decoded when it is reached
 * and at most one is held at a time, so a read holds at most one chunk's envelopes beyond what it
 * returns. A chunk that cannot be decoded (the file was changed outside svc) fails the read with
 * `CorruptChunkError`, naming it; nothing is skipped silently.
 */
import type { Database, Statement } from "bun:sqlite";
import { chunkOf, decodeChunk, position } from "./journal-chunk.ts";

export interface JournalRecord {
  /** Place in the whole journal (journal-chunk.ts); orders a session's events across epochs. */
  readonly position: number;
  readonly epoch: string;
  readonly eventId: number;
  /** The envelope JSON exactly as subscribers received it. */
  readonly envelope: string;
}

/** A chunk's row as the reader selects it (the epoch's text in place of its key). */
export interface ChunkRow {
  seq: number;
  epoch: string;
  first_event_id: number;
  count: number;
  chars: number;
  encoding: number;
  body: unknown;
}

/** The chunk's records, in order. */
export function chunkRecords(chunk: ChunkRow): JournalRecord[] {
  const envelopes = decodeChunk(chunk.seq, chunk.encoding, chunk.body, chunk.count, chunk.chars);
  return envelopes.map((envelope, index) => ({ position: position(chunk.seq, index), epoch: chunk.epoch, eventId: chunk.first_event_id + index, envelope }));
}

export class JournalReader {
  private readonly from: Statement<ChunkRow>;
  private readonly latest: Statement<ChunkRow>;
  private readonly latestTo: Statement<ChunkRow>;
  private readonly countBefore: Statement<{ count: number }>;
  private readonly totals: Statement<{ count: number; chars: number }>;

  constructor(db: Database) {
    // A session's rows are those of its key (migrations.ts, version 4); the rows of its id that a
    // delete left to the compactor (a purge entry) are not its: an id reused after a delete starts
    // with an empty journal.
    const live = `session = (SELECT key FROM journal_sessions WHERE id = $sessionId)
      AND seq > (SELECT COALESCE(MAX(up_to_seq), 0) FROM purge WHERE session_id = $sessionId)`;
    // The epoch's text by its key, one lookup per chunk returned (a subquery, so the plan walks the session's index).
    const columns = "seq, (SELECT epoch FROM journal_epochs WHERE key = journal.epoch) AS epoch, first_event_id, count, chars, encoding, body";
    // Stepped one chunk at a time (`iterate`) and left once the page is full: no LIMIT needed.
    this.from = db.query(`SELECT ${columns} FROM journal WHERE ${live} AND seq >= $fromSeq ORDER BY seq`);
    this.latest = db.query(`SELECT ${columns} FROM journal WHERE ${live} ORDER BY seq DESC`);
    this.latestTo = db.query(`SELECT ${columns} FROM journal WHERE ${live} AND seq <= $toSeq ORDER BY seq DESC`);
    this.countBefore = db.query(`SELECT COALESCE(SUM(count), 0) AS count FROM journal WHERE ${live} AND seq < $toSeq`);
    this.totals = db.query(`SELECT COALESCE(SUM(count), 0) AS count, COALESCE(SUM(chars), 0) AS chars FROM journal WHERE ${live}`);
  }

  /**
   * The session's newest records, oldest first: at most `maxEvents`, and as many as fit in
   * `maxBytes` of envelope (at least the newest one), plus how many older ones were left out. With
   * `before` (a record's position), the newest of those before it.
   */
  newest(sessionId: string, maxEvents: number, maxBytes: number, before: number | null = null): { records: JournalRecord[]; omitted: number } {
    const newestFirst: JournalRecord[] = [];
    let bytes = 0;
    const chunks = before === null ? this.latest.iterate({ sessionId }) : this.latestTo.iterate({ sessionId, toSeq: chunkOf(before) });
    scan: for (const chunk of chunks) {
      const all = chunkRecords(chunk);
      for (let i = all.length - 1; i >= 0; i--) {
        if (before !== null && all[i]!.position >= before) continue;
        bytes += all[i]!.envelope.length;
        if (newestFirst.length === maxEvents || (newestFirst.length > 0 && bytes > maxBytes)) break scan;
        newestFirst.push(all[i]!);
      }
    }
    const held = before === null ? this.size(sessionId) : this.countBefore.get({ sessionId, toSeq: chunkOf(before) })!.count + (before - position(chunkOf(before), 0));
    return { records: newestFirst.reverse(), omitted: Math.max(0, held - newestFirst.length) };
  }

  /** Up to `limit` records of the session after `after` (a record's position; 0: from the start). */
  after(sessionId: string, after: number, limit: number): JournalRecord[] {
    return this.pageAfter(sessionId, after, limit, Number.POSITIVE_INFINITY).records;
  }

  /**
   * The records after `after` (a record's position; 0: from the start), at most `limit` of them and
   * as many as fit in `maxBytes` of envelope (at least one, however large), and whether more follow.
   */
  pageAfter(sessionId: string, after: number, limit: number, maxBytes: number): { records: JournalRecord[]; hasMore: boolean } {
    const page: JournalRecord[] = [];
    let bytes = 0;
    for (const chunk of this.from.iterate({ sessionId, fromSeq: chunkOf(after) })) {
      for (const record of chunkRecords(chunk)) {
        if (record.position <= after) continue;
        bytes += record.envelope.length;
        if (page.length === limit || (page.length > 0 && bytes > maxBytes)) return { records: page, hasMore: true };
        page.push(record);
      }
    }
    return { records: page, hasMore: false };
  }

  /** The characters of all the session's envelopes together (summed by SQLite, no chunk is decoded). */
  chars(sessionId: string): number {
    return this.totals.get({ sessionId })?.chars ?? 0;
  }

  size(sessionId: string): number {
    return this.totals.get({ sessionId })?.count ?? 0;
  }
}
