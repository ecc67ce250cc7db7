/**
 * `POST /session/:id/worktree-reset`, the reference's behaviour: a worktree session (live, or only
 * in the catalog) is replaced by a fresh session, a new conversation, in the same worktree checkout
 * on the same branch; the files are not touched (the work done in the worktree stays). The old
 * session is closed (`session_closed` with reason `worktree_reset`, its clients cut off) and
 * recorded as superseded: loading it is then 409 `worktree_session_superseded` naming the
 * replacement. The answer is the replacement as `POST /session` answers a new one.
 *
 * 409 `worktree_reset_unsupported` for a session outside a worktree, `worktree_reset_active` while
 * it runs a prompt, awaits a permission, is being restored or reset, `worktree_reset_invalid_state`
 * when its checkout is no longer where it was made, `worktree_session_superseded` when a reset
 * replaced it already.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { Store } from "../store/store.ts";
import type { LiveSession } from "./live-session.ts";
import type { RuntimeRegistry } from "./runtime-registry.ts";
import { sessionNotFound } from "./session-errors.ts";
import type { CreateResult } from "./session-creation.ts";
import type { SessionManager } from "./session-manager.ts";
import { worktreeSuperseded } from "./session-restore.ts";
import { parseSessionSource } from "./session-source.ts";
import { parseWorktree, type WorktreeInfo } from "./worktree-seam.ts";

/** The replacement, as `POST /session` answers a new worktree session (its worktree members always there). */
export type WorktreeResetResult = CreateResult & { worktree: WorktreeInfo; worktreeState: "persisted-v1"; currentCwd: string };

export interface WorktreeResetRequest {
  readonly modelServiceId?: string;
  readonly sourceType?: string;
  readonly sourceId?: string;
}

export interface WorktreeResetDeps {
  readonly sessions: SessionManager;
  readonly runtimes: RuntimeRegistry;
  readonly store: Store | null;
}

const active = (sessionId: string) => new DaemonError(409, "worktree_reset_active", `Session ${sessionId} has a prompt in progress; wait for it to finish before resetting`, { sessionId });
const invalidState = (sessionId: string) =>
  new DaemonError(409, "worktree_reset_invalid_state", `Session ${sessionId}'s worktree ownership state is invalid; the reset made no destructive change`, { sessionId });

export class WorktreeResets {
  /** Sessions being reset now: a second reset of one is refused, not run twice. */
  private readonly running = new Set<string>();

  constructor(private readonly deps: WorktreeResetDeps) {}

  async reset(sessionId: string, request: WorktreeResetRequest): Promise<WorktreeResetResult> {
    if (this.running.has(sessionId) || this.deps.sessions.isRestoring(sessionId)) throw active(sessionId);
    this.running.add(sessionId);
    try {
      return await this.replace(sessionId, request);
    } finally {
      this.running.delete(sessionId);
    }
  }

  private async replace(sessionId: string, request: WorktreeResetRequest): Promise<WorktreeResetResult> {
    const { sessions, runtimes, store } = this.deps;
    const live: LiveSession | null = sessions.peek(sessionId) === null ? null : sessions.get(sessionId);
    const row = store?.session(sessionId) ?? null;
    if (live === null && row === null) throw sessionNotFound(sessionId);
    if (row?.supersededBy) throw worktreeSuperseded(sessionId, row.supersededBy);
    const worktree = live !== null ? live.worktree : parseWorktree(row!.worktree);
    if (worktree === null) {
      if (live === null && row!.worktree !== null) throw invalidState(sessionId);
      throw new DaemonError(409, "worktree_reset_unsupported", `Session ${sessionId} is not a worktree session`, { sessionId });
    }
    if (live?.busy) throw active(sessionId);
    const runtime = live?.runtime ?? runtimes.forCwd(row!.workspace);
    if ((await (await sessions.worktrees.of(runtime.cwd)).locate(worktree)) === null) throw invalidState(sessionId);
    const source = parseSessionSource(request.sourceType, request.sourceId, true);
    const replacement = await sessions.openInWorktree(runtime, worktree, request.modelServiceId, source);
    // A prompt admitted while the replacement started keeps the checkout with the old session.
    if (live !== null && sessions.peek(sessionId) === live && live.busy) {
      await sessions.close(replacement.sessionId, "client_close").catch(() => {});
      throw active(sessionId);
    }
    store?.sessionSuperseded(sessionId, replacement.sessionId);
    // Whichever session holds the id now: the one live at the start, or one a load restored meanwhile.
    if (sessions.peek(sessionId) !== null) await sessions.close(sessionId, "worktree_reset");
    return { ...replacement, worktree: { slug: worktree.slug, path: worktree.path, branch: worktree.branch }, worktreeState: "persisted-v1", currentCwd: worktree.path };
  }
}
