/**
 * History of sessions, live or closed, read from the store only (never from an agent, so a closed
 * session's history starts no child): which sessions a workspace has (persisted rows with the live
 * state overlaid), a session's transcript in pages, and everything an export needs.
 *
 * Events a subscriber has received are in the journal (the bus releases a frame only once it is
 * committed), or follow a `session_recording_degraded` notice that names the first one it lacks, so
 * the transcript of a live session is never silently behind its streams. While the store cannot be
 * read, every answer here is 503 `store_unavailable` (store.ts), never an empty list or a false 404.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { CatalogRow, JournalRecord, SourceFilter, Store } from "../store/store.ts";
import { decodeCursor, encodeCursor } from "./history-cursor.ts";
import type { LiveSession } from "./live-session.ts";
import { sessionNotFound } from "./session-errors.ts";
import type { SessionManager } from "./session-manager.ts";
import { parentFields, sessionSummary } from "./session-summary.ts";
import { parseWorktree, worktreeFields } from "./worktree-seam.ts";

export const DEFAULT_TRANSCRIPT_LIMIT = 100;
export const MAX_TRANSCRIPT_LIMIT = 500;
/**
 * Most envelope bytes one transcript page carries: a page ends early (with `hasMore` and a cursor)
 * when the next record would pass it. A single record larger than this still comes alone, so every
 * page makes progress.
 */
export const MAX_TRANSCRIPT_PAGE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_LIST_SIZE = 100;
/** The reference's clients ask pages of up to 1000 sessions (its web UI asks exactly that). */
export const MAX_LIST_SIZE = 1000;
/**
 * Most journal one export renders, in characters of envelope JSON, checked before the first byte
 * goes out: a longer session answers 413 `transcript_too_large` (its transcript can still be
 * paged). Events journaled while an export streams are included as it reaches them.
 */
export const MAX_EXPORT_BYTES = 64 * 1024 * 1024;
/**
 * An export reads (and renders) the journal a page at a time: at most this many records and this
 * many characters of envelope (at least one record), so it holds one page and its rendering.
 */
const EXPORT_PAGE = 1000;
export const EXPORT_PAGE_BYTES = 1024 * 1024;

export interface TranscriptPage {
  v: 1;
  sessionId: string;
  events: unknown[];
  hasMore: boolean;
  nextCursor?: string;
}

/** What is known about a session: its catalog row, its live self, or both. */
export interface SessionRecord {
  readonly id: string;
  readonly workspace: string;
  readonly row: CatalogRow | null;
  readonly live: LiveSession | null;
}

/** A session of a list: a live one with its live state, or the catalog row of one that is not live. */
export type SessionListRecord = (ReturnType<typeof sessionSummary> & { isArchived: boolean; live: true }) | ReturnType<typeof persistedSummary>;

/** What a session list keeps and how it shows it. */
export interface ListFilters {
  /** Only the sessions of this source. */
  readonly source: SourceFilter | null;
}

const NO_FILTERS: ListFilters = { source: null };

export interface ExportData {
  readonly session: SessionRecord;
  /** The journal in order, read a page at a time as it is iterated. */
  readonly pages: Iterable<readonly JournalRecord[]>;
}

export class SessionHistory {
  constructor(
    private readonly sessions: SessionManager,
    private readonly store: Store | null,
  ) {}

  /**
   * The session, live or persisted, or 404 `session_not_found`; 503 `store_unavailable` while the
   * catalog cannot be read (its history could not be either; and no false 404).
   */
  find(sessionId: string): SessionRecord {
    const live = this.sessions.peek(sessionId);
    const row = this.store?.session(sessionId) ?? null;
    if (live === null && row === null) throw sessionNotFound(sessionId);
    return { id: sessionId, workspace: live?.workspaceCwd ?? row!.workspace, row, live };
  }

  /**
   * One page of at most `limit` records (1 to MAX_TRANSCRIPT_LIMIT, checked by the route's query
   * schema) and at most MAX_TRANSCRIPT_PAGE_BYTES of them (at least one record).
   */
  transcript(sessionId: string, limit = DEFAULT_TRANSCRIPT_LIMIT, cursor?: string): TranscriptPage {
    this.find(sessionId);
    const scope = `transcript:${sessionId}`;
    const after = cursor === undefined ? 0 : decodeCursor<{ at: number }>(cursor, scope, { at: "number" }, "invalid_transcript_cursor").at;
    const { records: page, hasMore } = this.store?.journalPage(sessionId, after, limit, MAX_TRANSCRIPT_PAGE_BYTES) ?? { records: [], hasMore: false };
    return {
      v: 1,
      sessionId,
      events: page.map((r) => JSON.parse(r.envelope) as unknown),
      hasMore,
      ...(hasMore ? { nextCursor: encodeCursor(scope, { at: page[page.length - 1]!.position }) } : {}),
    };
  }

  /** The session and its journal, to be read a page at a time; 413 `transcript_too_large` past MAX_EXPORT_BYTES. */
  exportData(sessionId: string): ExportData {
    const session = this.find(sessionId);
    if ((this.store?.journalChars(sessionId) ?? 0) > MAX_EXPORT_BYTES)
      throw new DaemonError(413, "transcript_too_large", "The session is too long to export in one piece; page its transcript instead", { sessionId, maxBytes: MAX_EXPORT_BYTES });
    // The first page is read now: a journal that cannot be read at all (503 locked, 500 damaged)
    // answers that error instead of a stream that breaks at its start. A page damaged further on can
    // only cut the stream short.
    const first = this.store?.journalPage(sessionId, 0, EXPORT_PAGE, EXPORT_PAGE_BYTES) ?? { records: [], hasMore: false };
    return { session, pages: journalPages(this.store, sessionId, first) };
  }

  /**
   * One page of a workspace's sessions, most recently updated first: catalog rows, each overlaid
   * with its live state when it is live. Live sessions the catalog lacks (recording is degraded)
   * lead the first page. `size` is 1 to MAX_LIST_SIZE (checked by the route's query schema).
   * A cursor holds for the filters it was made with only (400 `invalid_cursor` with others).
   */
  list(workspace: string, archived: boolean, size = DEFAULT_LIST_SIZE, cursor?: string, filters: ListFilters = NO_FILTERS) {
    const { source } = filters;
    const scope = `sessions:${workspace}:${archived ? "archived" : "active"}${source ? `:${source.sourceType}:${source.sourceId ?? ""}` : ""}`;
    const after = cursor === undefined ? null : decodeCursor<{ updatedAt: number; id: string }>(cursor, scope, { updatedAt: "number", id: "string" }, "invalid_cursor");
    const rows = this.store?.sessions(workspace, archived, size + 1, after, source) ?? [];
    const page = rows.slice(0, size);
    const sessions: SessionListRecord[] = [];
    const kept = (live: LiveSession) => source === null || (live.source?.sourceType === source.sourceType && (source.sourceId === undefined || live.source.sourceId === source.sourceId));
    if (after === null && !archived)
      for (const live of this.sessions.all())
        if (live.workspaceCwd === workspace && kept(live) && this.store?.session(live.id) == null) sessions.push({ ...sessionSummary(live, { listEntry: true }), isArchived: false, live: true as const });
    for (const row of page) {
      const live = this.sessions.peek(row.id);
      sessions.push(live ? { ...sessionSummary(live, { listEntry: true }), isArchived: row.archived, live: true as const } : persistedSummary(row));
    }
    const last = page[page.length - 1];
    return {
      sessions,
      ...(rows.length > size && last ? { nextCursor: encodeCursor(scope, { updatedAt: last.updatedAt, id: last.id }) } : {}),
    };
  }

  /**
   * How many sessions a workspace has, counted as `list` lists them: catalog rows, plus live
   * sessions the catalog lacks (recording is degraded) among the active ones; `live` counts the
   * live sessions. The shape is the reference daemon's, `expensive`/`cost` included: the count
   * reads the whole catalog of the workspace, so clients are told not to poll it in a loop.
   */
  info(workspace: string) {
    const counts = this.store?.sessionCounts(workspace) ?? { active: 0, archived: 0 };
    const live = [...this.sessions.all()].filter((s) => s.workspaceCwd === workspace);
    const active = counts.active + live.filter((s) => this.store?.session(s.id) == null).length;
    return { active, archived: counts.archived, total: active + counts.archived, live: live.length, expensive: true as const, cost: "disk_scan" as const };
  }
}

/** A session's journal in pages of EXPORT_PAGE records and EXPORT_PAGE_BYTES: `first`, then each next one read when it is asked for. */
function* journalPages(store: Store | null, sessionId: string, first: { records: JournalRecord[]; hasMore: boolean }): Generator<JournalRecord[], void, undefined> {
  for (let page = first; ; ) {
    if (page.records.length > 0) yield page.records;
    if (!page.hasMore || store === null) return;
    page = store.journalPage(sessionId, page.records[page.records.length - 1]!.position, EXPORT_PAGE, EXPORT_PAGE_BYTES);
  }
}

/** The list record of a session that is not live. */
export function persistedSummary(row: CatalogRow) {
  const source = row.metadata.titleSource;
  const titleSource: "manual" | "agent" | "auto" | undefined = source === "manual" || source === "agent" || source === "auto" ? source : undefined;
  return {
    sessionId: row.id,
    workspaceCwd: row.workspace,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    ...(row.displayName !== null ? { displayName: row.displayName, ...(titleSource !== undefined ? { titleSource } : {}) } : {}),
    ...(row.sourceType !== null ? { sourceType: row.sourceType, ...(row.sourceId !== null ? { sourceId: row.sourceId } : {}) } : {}),
    ...parentFields(row.parentSessionId === null ? null : { parentSessionId: row.parentSessionId, parentPromptId: row.parentPromptId }),
    ...worktreeFields(parseWorktree(row.worktree)),
    ...(row.supersededBy !== null ? { supersededBy: row.supersededBy } : {}),
    isArchived: row.archived,
    live: false as const,
    // `live` in the catalog with no live session: the daemon that ran it went away without a word.
    persistedState: row.state === "live" ? ("interrupted" as const) : row.state,
    clientCount: 0 as const,
    hasActivePrompt: false as const,
    activeWorkState: "idle" as const,
  };
}
