/**
 * `load` and `resume` of a persisted session. A live session is attached to as it is. Otherwise
 * the agent brings it back (`SessionManager.reopen`) on a new event bus (new epoch, ids from 1),
 * within `--session-restore-timeout-ms` (504 `session_restore_timeout` past it; a restore that
 * completes later leaves the session live, so the retry attaches to it). A restored session nobody
 * claimed (no client attached, no stream open) UNCLAIMED_RESTORE_GRACE_MS after its restore
 * completed is closed, which closes the agent session and lets the idle child go: kept live, it
 * would hold the child until the idle reaper, for a caller that gave up.
 *
 * An agent offering neither `session/load` nor `session/resume`, or answering that it does not know
 * the session, gets a fresh session seeded from the journal (`restoredBy: "seeded"`, see
 * `SessionManager.reopen`). While a restore runs, closing, archiving or deleting the session is 409
 * `restore_in_progress` too (`SessionManager.closable`, `SessionCatalog.bulk`).
 *
 * Concurrent restores of one session with the same action share one restore (the later callers
 * get `attached: true`); a different action while one runs is 409 `restore_in_progress` with
 * `Retry-After: 5`. `load` answers with a bounded replay of the journal (sessions/journal-replay.ts:
 * the newest events within the baseline caps, grown from the journal growth pool when it has room;
 * each names its epoch in `_meta.eventEpoch`, `lastEventId` counts in the reply's `eventEpoch`);
 * the caller releases the replay's lease once the reply is sent. `resume` answers without one.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { Store } from "../store/store.ts";
import type { GrowthLease } from "./journal-growth.ts";
import type { JournalReplay } from "./journal-replay.ts";
import type { LiveSession } from "./live-session.ts";
import { RESTORE_RETRY_AFTER_SECONDS, restoreInProgress } from "./restore-in-progress.ts";
import { sessionNotFound } from "./session-errors.ts";
import type { SessionManager } from "./session-manager.ts";
import { worktreeFields } from "./worktree-seam.ts";

export type RestoreAction = "load" | "resume";

/** A replayed envelope as the journal holds it (`journal-replay.ts` adds `_meta.eventEpoch`; a `history_truncated` marker has no id or epoch). */
interface ReplayEnvelope {
  id?: number;
  v: 1;
  type: string;
  data: unknown;
  _meta: { serverTimestamp: number; eventEpoch?: string };
}

interface Restoring {
  readonly action: RestoreAction;
  readonly done: Promise<{ session: LiveSession; method: string }>;
}

/**
 * How long a restored session waits to be claimed: twice the `Retry-After` of the 504, so a client
 * that retries as told still attaches to it instead of restoring it again.
 */
export const UNCLAIMED_RESTORE_GRACE_MS = 2 * RESTORE_RETRY_AFTER_SECONDS * 1000;

/** 409 for a session whose worktree a reset handed to `replacement` (the reference's answer and code). */
export const worktreeSuperseded = (sessionId: string, replacement: string) =>
  new DaemonError(409, "worktree_session_superseded", `Session ${sessionId} was superseded by a worktree reset; restore the replacement session instead`, { sessionId, replacementSessionId: replacement });

export class SessionRestorer {
  /** One entry per session being restored; removed when its restore settles (not at a caller's deadline). */
  private readonly inProgress = new Map<string, Restoring>();

  constructor(
    private readonly sessions: SessionManager,
    private readonly store: Store | null,
    private readonly timeoutMs: number,
    private readonly replay: JournalReplay,
  ) {}

  /** The reply, and the growth lease its replay holds (null without a replay) until the reply is sent. */
  async restore(sessionId: string, action: RestoreAction, clientHeader: string | null) {
    const running = this.inProgress.get(sessionId);
    if (running) {
      if (running.action !== action)
        throw restoreInProgress(`Session ${sessionId} is being restored by ${running.action}; retry shortly`, { sessionId, activeAction: running.action, requestedAction: action });
      const { session, method } = await this.bounded(running.done, sessionId, action);
      await this.unlessSuperseded(session);
      return this.reply(session, action, clientHeader, true, method);
    }
    const live = this.sessions.peek(sessionId);
    if (live) return this.reply(live, action, clientHeader, true, "live");
    // 503 `store_unavailable` while the catalog cannot be read: not a false 404.
    const row = this.store?.session(sessionId);
    if (!row) throw sessionNotFound(sessionId);
    if (row.archived) throw new DaemonError(409, "session_archived", `Session ${sessionId} is archived; unarchive it to restore it`, { sessionId });
    if (row.supersededBy !== null) throw worktreeSuperseded(sessionId, row.supersededBy);

    // The entry stays until the restore itself settles, even past a caller's deadline, so a retry
    // joins it instead of starting another.
    const entry: Restoring = { action, done: this.sessions.reopen(row, action, this.timeoutMs) };
    this.inProgress.set(sessionId, entry);
    entry.done
      .finally(() => {
        if (this.inProgress.get(sessionId) === entry) this.inProgress.delete(sessionId);
      })
      .then(({ session }) => this.closeIfUnclaimed(session))
      .catch(() => {});
    const { session, method } = await this.bounded(entry.done, sessionId, action);
    await this.unlessSuperseded(session);
    return this.reply(session, action, clientHeader, false, method);
  }

  /**
   * A worktree reset that superseded the session while it was being restored: the restored session
   * is closed (the replacement has its checkout) and the restore answers 409, as a later one would.
   */
  private async unlessSuperseded(session: LiveSession): Promise<void> {
    const replacement = this.store?.session(session.id)?.supersededBy ?? null;
    if (replacement === null) return;
    if (this.sessions.peek(session.id) === session) await this.sessions.close(session.id, "worktree_reset").catch(() => {});
    throw worktreeSuperseded(session.id, replacement);
  }

  /** Closes `session` after UNCLAIMED_RESTORE_GRACE_MS if it is still live and nobody attached to it or streams it. */
  private closeIfUnclaimed(session: LiveSession): void {
    setTimeout(() => {
      if (this.sessions.peek(session.id) !== session || session.clients.size > 0 || session.bus.subscriberCount > 0) return;
      void this.sessions.close(session.id, "idle_timeout").catch(() => {});
    }, UNCLAIMED_RESTORE_GRACE_MS).unref();
  }

  /** `restoring` past the restore timeout (or an agent that did not answer within it) is a 504. */
  private async bounded<T>(restoring: Promise<T>, sessionId: string, action: RestoreAction): Promise<T> {
    const { timeoutMs } = this;
    const expired = () =>
      new DaemonError(504, "session_restore_timeout", `Restoring session ${sessionId} took longer than ${timeoutMs} ms`, { errorKind: "restore_timeout", retryable: true, sessionId, action, timeoutMs }, RESTORE_RETRY_AFTER_SECONDS);
    let timer: Timer | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(expired()), timeoutMs);
    });
    try {
      return await Promise.race([restoring, deadline]);
    } catch (err) {
      throw err instanceof DaemonError && err.code === "agent_timeout" ? expired() : err;
    } finally {
      clearTimeout(timer);
    }
  }

  private reply(session: LiveSession, action: RestoreAction, clientHeader: string | null, attached: boolean, restoredBy: string) {
    const clientId = session.clients.attach(clientHeader);
    session.noteActivity();
    const { models, modes, configOptions } = session.state;
    const replay = action === "load" ? this.replay.read(session.id) : null;
    return {
      reply: {
        sessionId: session.id,
        workspaceCwd: session.workspaceCwd,
        attached,
        clientId,
        createdAt: new Date(session.createdAt).toISOString(),
        state: { models: models ?? null, modes: modes ?? null, configOptions: configOptions ?? [] },
        hasActivePrompt: session.prompts.running !== null,
        hasRunningBackgroundTasks: false,
        lastEventId: session.bus.lastId,
        eventEpoch: session.bus.epoch,
        /** How the session came back: `session/load` or `session/resume` on the agent, `seeded` (a fresh agent session given the journal's transcript), or `live` (it was). */
        restoredBy,
        ...worktreeFields(session.worktree),
        ...(replay ? { compactedReplay: replay.envelopes as ReplayEnvelope[], liveJournal: [] } : {}),
      },
      lease: (replay?.lease ?? null) as GrowthLease | null,
    };
  }
}
