/**
 * Every journaled record in `svc.db`, chunks expanded (src/store/journal-chunk.ts), in journal order:
 * for tests that look at the database from a connection of their own.
 */
import type { Database } from "bun:sqlite";
import { chunkRecords, type ChunkRow, type JournalRecord } from "../../src/store/journal-reader.ts";

export interface JournalRow extends JournalRecord {
  readonly sessionId: string;
}

/** The records of every session, or of `sessionId` only. */
export function journalRows(db: Database, sessionId?: string): JournalRow[] {
  const chunks = db
    .query(
      `SELECT j.seq, s.id AS session_id, e.epoch, j.first_event_id, j.count, j.chars, j.encoding, j.body
         FROM journal j JOIN journal_sessions s ON s.key = j.session JOIN journal_epochs e ON e.key = j.epoch
        WHERE ?1 IS NULL OR s.id = ?1 ORDER BY j.seq`,
    )
    .all(sessionId ?? null) as (ChunkRow & { session_id: string })[];
  return chunks.flatMap((chunk) => chunkRecords(chunk).map((record) => ({ ...record, sessionId: chunk.session_id })));
}
