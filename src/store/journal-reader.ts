/**
 * Reads a session's journal back: pages in `seq` order for `/transcript` and `/export`, and the
 * newest events for a restore's replay. Read-only; never touches what the writer has pending.
 */
import type { Database, Statement } from "bun:sqlite";

export interface JournalRecord {
  /** Position in the whole journal; orders a session's events across epochs. */
  readonly seq: number;
  readonly epoch: string;
  readonly eventId: number;
  /** The envelope JSON exactly as subscribers received it. */
  readonly envelope: string;
}

interface RawRecord {
  seq: number;
  epoch: string;
  event_id: number;
  envelope: string;
}

const fromRaw = (raw: RawRecord): JournalRecord => ({ seq: raw.seq, epoch: raw.epoch, eventId: raw.event_id, envelope: raw.envelope });

export class JournalReader {
  private readonly page: Statement<RawRecord>;
  private readonly count: Statement<{ n: number }>;
  private readonly latest: Statement<RawRecord>;
  private readonly length: Statement<{ n: number }>;

  constructor(db: Database) {
    // A session's rows are those of its key (migrations.ts, version 4); the rows of its id that a
    // delete left to the compactor (a purge entry) are not its: an id reused after a delete starts
    // with an empty journal.
    const live = `session = (SELECT key FROM journal_sessions WHERE id = $sessionId)
      AND seq > (SELECT COALESCE(MAX(up_to_seq), 0) FROM purge WHERE session_id = $sessionId)`;
    // The epoch's text by its key, one lookup per row returned (a subquery, so the plan walks the session's index).
    const columns = "seq, (SELECT epoch FROM journal_epochs WHERE key = journal.epoch) AS epoch, event_id, envelope";
    this.page = db.query(`SELECT ${columns} FROM journal WHERE ${live} AND seq > $afterSeq ORDER BY seq LIMIT $limit`);
    this.count = db.query(`SELECT COUNT(*) AS n FROM journal WHERE ${live}`);
    this.length = db.query(`SELECT COALESCE(SUM(length(envelope)), 0) AS n FROM journal WHERE ${live}`);
    this.latest = db.query(`SELECT ${columns} FROM journal WHERE ${live} ORDER BY seq DESC LIMIT $limit`);
  }

  /**
   * The session's newest records, oldest first: at most `maxEvents`, and as many as fit in
   * `maxBytes` of envelope (at least the newest one), plus how many older ones were left out.
   */
  newest(sessionId: string, maxEvents: number, maxBytes: number): { records: JournalRecord[]; omitted: number } {
    const records: JournalRecord[] = [];
    let bytes = 0;
    for (const raw of this.latest.iterate({ sessionId, limit: maxEvents })) {
      bytes += raw.envelope.length;
      if (records.length > 0 && bytes > maxBytes) break;
      records.push(fromRaw(raw));
    }
    records.reverse();
    return { records, omitted: this.size(sessionId) - records.length };
  }

  /** Up to `limit` records of the session after `afterSeq` (0: from the start). */
  after(sessionId: string, afterSeq: number, limit: number): JournalRecord[] {
    return this.page.all({ sessionId, afterSeq, limit }).map(fromRaw);
  }

  /**
   * The records after `afterSeq` (0: from the start), at most `limit` of them and as many as fit in
   * `maxBytes` of envelope (at least one, however large), and whether more follow. Rows are read one
   * at a time, so a page never holds more than its budget plus the one record that overflowed it.
   */
  pageAfter(sessionId: string, afterSeq: number, limit: number, maxBytes: number): { records: JournalRecord[]; hasMore: boolean } {
    const records: JournalRecord[] = [];
    let bytes = 0;
    // One row past `limit` says whether another page follows.
    for (const raw of this.page.iterate({ sessionId, afterSeq, limit: limit + 1 })) {
      bytes += raw.envelope.length;
      if (records.length === limit || (records.length > 0 && bytes > maxBytes)) return { records, hasMore: true };
      records.push(fromRaw(raw));
    }
    return { records, hasMore: false };
  }

  /** The characters of all the session's envelopes together (counted by SQLite, no row is loaded here). */
  chars(sessionId: string): number {
    return this.length.get({ sessionId })?.n ?? 0;
  }

  size(sessionId: string): number {
    return this.count.get({ sessionId })?.n ?? 0;
  }
}
