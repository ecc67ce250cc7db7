/**
 * The turns the checkpoints know, per session and in one global order (oldest first), with the
 * files each changed: the content before (a blob, or "did not exist", or why it could not be kept)
 * and the content after (its hash), so a rewind knows what to put back and whether a file changed
 * since. Pure bookkeeping: the blobs' references are taken and dropped by the caller through
 * `release`.
 *
 * Bounds: MAX_TURNS turn records and MAX_FILE_RECORDS file records in all; past either the oldest
 * finished turns are evicted (as for bytes, `checkpoints.ts`), counted in `evictions`. A turn records
 * at most MAX_FILES_PER_TURN files; the rest are counted in its `omitted` (and cannot be restored).
 * Records live in memory for the daemon's life.
 */

/** Most turn records kept, all sessions together. */
export const MAX_TURNS = 50_000;
/** Most file records kept, all turns together. */
export const MAX_FILE_RECORDS = 100_000;
/** Most files one turn records. */
export const MAX_FILES_PER_TURN = 10_000;

/** A file's content before a turn changed it. */
export interface Before {
  /** Blob hash of the content; null when the file did not exist. */
  readonly hash: string | null;
  /** Its permission bits (for a file re-created by a restore). */
  readonly mode: number;
  /** Set when the content could not be kept (`too_large`, `over_budget`, `unreadable`, `not_in_git`). */
  readonly unrestorable?: string;
}

/** What the turn did to one file. */
export interface Touched {
  readonly before: Before;
  readonly source: "tool" | "shell";
  /** sha256 hex of the content after the turn; null: removed; "unknown": could not be read. Unset until the turn ends. */
  after?: string | null;
}

export interface Turn {
  readonly sessionId: string;
  readonly promptId: string;
  readonly index: number;
  readonly startedAt: number;
  finished: boolean;
  readonly files: Map<string, Touched>;
  /** Files the turn changed past MAX_FILES_PER_TURN (or with no room left): not recorded. */
  omitted: number;
}

export const UNKNOWN_AFTER = "unknown";

export class TurnLog {
  private readonly order: Turn[] = [];
  private readonly bySession = new Map<string, Turn[]>();
  private readonly nextIndex = new Map<string, number>();
  private records = 0;
  /** Turns evicted (for bytes, turn count or file records). */
  evictions = 0;

  constructor(private readonly release: (turn: Turn) => void) {}

  get size(): number {
    return this.order.length;
  }

  start(sessionId: string, promptId: string, now: number): Turn {
    if (this.order.length >= MAX_TURNS) this.evictOldest(null);
    const index = this.nextIndex.get(sessionId) ?? 0;
    this.nextIndex.set(sessionId, index + 1);
    const turn: Turn = { sessionId, promptId, index, startedAt: now, finished: false, files: new Map(), omitted: 0 };
    this.order.push(turn);
    const list = this.bySession.get(sessionId) ?? [];
    list.push(turn);
    this.bySession.set(sessionId, list);
    return turn;
  }

  turnsOf(sessionId: string): readonly Turn[] {
    return this.bySession.get(sessionId) ?? [];
  }

  /** Evicts the oldest finished turn other than `keep`; false when there is none. */
  evictOldest(keep: Turn | null): boolean {
    const at = this.order.findIndex((t) => t.finished && t !== keep);
    if (at < 0) return false;
    this.drop([this.order[at]!]);
    this.evictions++;
    return true;
  }

  /** Records what `turn` did to `rel`; false when it is over the bounds (counted in `omitted`; the caller releases its blob). */
  record(turn: Turn, rel: string, touched: Touched): boolean {
    while (this.records >= MAX_FILE_RECORDS && this.evictOldest(turn));
    if (turn.files.size >= MAX_FILES_PER_TURN || this.records >= MAX_FILE_RECORDS) {
      turn.omitted++;
      return false;
    }
    turn.files.set(rel, touched);
    this.records++;
    return true;
  }

  /** Forgets one file record of `turn` (its blob released by the caller). */
  unrecord(turn: Turn, rel: string): void {
    if (turn.files.delete(rel)) this.records--;
  }

  /** Forgets `turns` (their blobs released). */
  drop(turns: readonly Turn[]): void {
    const gone = new Set(turns);
    for (const turn of turns) {
      this.release(turn);
      this.records -= turn.files.size;
    }
    for (let i = this.order.length - 1; i >= 0; i--) if (gone.has(this.order[i]!)) this.order.splice(i, 1);
    for (const sessionId of new Set(turns.map((t) => t.sessionId))) {
      const left = (this.bySession.get(sessionId) ?? []).filter((t) => !gone.has(t));
      if (left.length === 0) this.bySession.delete(sessionId);
      else this.bySession.set(sessionId, left);
    }
  }

  /** Forgets the session's turns from `from` on (a rewind); the next turn takes `from`'s index. */
  dropFrom(from: Turn): void {
    const list = this.turnsOf(from.sessionId);
    this.drop(list.slice(list.indexOf(from)));
    this.nextIndex.set(from.sessionId, from.index);
  }

  /** Forgets what `turns` did to files (their blobs released), keeping the turns. */
  clearFiles(turns: readonly Turn[]): void {
    for (const turn of turns) {
      this.release(turn);
      this.records -= turn.files.size;
      turn.files.clear();
      turn.omitted = 0;
    }
  }
}
