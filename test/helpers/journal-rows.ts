/**
 * Every journaled record in `svc.db`, chunks expanded (src/store/journal-chunk.ts), in journal order:
 * for tests that look at the database from a connection of their own.
 */
import type { Database } from "bun:sqlite";
import { decodeChunk } from "../../src/store/journal-chunk.ts";

export interface JournalRow {
  readonly sessionId: string;
  readonly epoch: string;
  readonly eventId: number;
  readonly envelope: string;
}

interface RawChunk {
  seq: number;
  session_id: string;
  epoch: string;
  first_event_id: number;
  count: number;
  chars: number;
  encoding: number;
  body: unknown;
}

/** The records of every session, or of `sessionId` only. */
export function journalRows(db: Database, sessionId?: string): JournalRow[] {
  const chunks = db
    .query(
      `SELECT j.seq, s.id AS session_id, e.epoch, j.first_event_id, j.count, j.chars, j.encoding, j.body
         FROM journal j JOIN journal_sessions s ON s.key = j.session JOIN journal_epochs e ON e.key = j.epoch
        WHERE ?1 IS NULL OR s.id = ?1 ORDER BY j.seq`,
    )
    .all(sessionId ?? null) as RawChunk[];
  return chunks.flatMap((c) =>
    decodeChunk(c.seq, c.encoding, c.body, c.count, c.chars).map((envelope, i) => ({ sessionId: c.session_id, epoch: c.epoch, eventId: c.first_event_id + i, envelope })),
  );
}
