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
  readonly type: string;
  /** The envelope JSON exactly as subscribers received it. */
  readonly envelope: string;
}

interface RawRecord {
  seq: number;
  epoch: string;
  event_id: number;
  type: string;
  envelope: string;
}

const fromRaw = (raw: RawRecord): JournalRecord => ({ seq: raw.seq, epoch: raw.epoch, eventId: raw.event_id, type: raw.type, envelope: raw.envelope });

export class JournalReader {
  private readonly page: Statement<RawRecord>;
  private readonly count: Statement<{ n: number }>;

  constructor(db: Database) {
    this.page = db.query("SELECT seq, epoch, event_id, type, envelope FROM journal WHERE session_id = $sessionId AND seq > $afterSeq ORDER BY seq LIMIT $limit");
    this.count = db.query("SELECT COUNT(*) AS n FROM journal WHERE session_id = $sessionId");
  }

  /** Up to `limit` records of the session after `afterSeq` (0: from the start). */
  after(sessionId: string, afterSeq: number, limit: number): JournalRecord[] {
    return this.page.all({ sessionId, afterSeq, limit }).map(fromRaw);
  }

  size(sessionId: string): number {
    return this.count.get({ sessionId })?.n ?? 0;
  }
}
