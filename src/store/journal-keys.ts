/**
 * The integer keys a journal row stores for its session id and its epoch (migrations.ts, version 4):
 * `journal_sessions` and `journal_epochs` rows, created on first use. Looked up by the writer inside
 * each batch's transaction, never cached across batches (the compactor removes a deleted session's
 * keys once its rows are gone).
 */
import type { Database, Statement } from "bun:sqlite";

export class JournalKeys {
  private readonly findSession: Statement<{ key: number }>;
  private readonly addSession: Statement<{ key: number }>;
  private readonly findEpoch: Statement<{ key: number }>;
  private readonly addEpoch: Statement<{ key: number }>;

  constructor(db: Database) {
    this.findSession = db.query("SELECT key FROM journal_sessions WHERE id = ?1");
    this.addSession = db.query("INSERT INTO journal_sessions (id) VALUES (?1) RETURNING key");
    this.findEpoch = db.query("SELECT key FROM journal_epochs WHERE session = ?1 AND epoch = ?2");
    this.addEpoch = db.query("INSERT INTO journal_epochs (session, epoch) VALUES (?1, ?2) RETURNING key");
  }

  session(sessionId: string): number {
    return (this.findSession.get(sessionId) ?? this.addSession.get(sessionId)!).key;
  }

  epoch(session: number, epoch: string): number {
    return (this.findEpoch.get(session, epoch) ?? this.addEpoch.get(session, epoch)!).key;
  }
}
