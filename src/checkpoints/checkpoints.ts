/**
 * Checkpoints: before each turn's first change to a file, its content is kept, so the turn can be
 * undone (`POST /session/:id/rewind`). Two ways a change is seen:
 * - an edit tool's write: the agent asks the daemon first (`svc/checkpoint/before_write`, the
 *   built-in agent's edit and write tools) and writes once the daemon answered, so the content kept
 *   is exactly the one replaced;
 * - a shell command's change to a tracked file: the tracked tree is compared before and after the
 *   turn (`git-tree.ts`, which says what that does not cover). Such a change cannot be told from
 *   one made by anybody else while the turn ran (the user's editor, another session), so a rewind
 *   puts it back only when forced: it is always among the plan's conflicts.
 *
 * Storage: content-addressed blobs (`blob-store.ts`) bounded by `maxBytes`; a blob that would pass
 * the bound first evicts whole finished turns, oldest first across all sessions (counted in
 * `evictions`); when no finished turn is left to evict, the file is recorded as not restorable
 * (`over_budget`). The snapshot of a file that was dirty when a turn started evicts nothing (the
 * turn may never touch it): without room, that file is `over_budget` if the turn changes it. A file over `fileCap` bytes is never read whole: recorded as `too_large`.
 */
import type { Logger } from "../logging/logger.ts";
import type { GitHost } from "../workspace/git/git-session.ts";
import { normalizeRequestPath } from "../workspace/paths.ts";
import { BlobStore } from "./blob-store.ts";
import { GitTree, type TreeState } from "./git-tree.ts";
import { UNKNOWN_AFTER, TurnLog, type Before, type Touched, type Turn } from "./turn-log.ts";
import { readNow, removeFile, restoreFile, type FileNow } from "./workspace-io.ts";

/** Largest single file kept (further bounded by the store's own bound). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface CheckpointOptions {
  /** The folder of the blob stores (this process's is emptied when opened). */
  readonly dir: string;
  readonly maxBytes: number;
  /** The git access for a workspace root, or null to cover tool writes only. */
  readonly gitHost: (root: string) => GitHost | null;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface CheckpointStatus {
  readonly bytes: number;
  readonly count: number;
  readonly evictions: number;
  readonly maxBytes: number;
  readonly turns: number;
}

export interface FileChangeView {
  readonly path: string;
  readonly change: "created" | "modified" | "deleted";
  readonly source: "tool" | "shell";
  readonly restorable: boolean;
  readonly reason?: string;
}

export interface TurnView {
  readonly promptId: string;
  readonly turnIndex: number;
  readonly timestamp: string;
  readonly diffStats: { readonly filesChanged: number };
  readonly files: FileChangeView[];
  /** Files changed past the per-turn record bound: not listed, not restorable. */
  readonly filesOmitted?: number;
}

/** One file of a rewind: what goes back, and what it should be now. */
export interface RestoreItem {
  readonly path: string;
  readonly before: Before;
  readonly expected: string | null;
  /** A turn's change to it was seen in the tracked tree, not through an edit tool: svc cannot say who made it. */
  readonly unattributed: boolean;
}

export interface RewindPlan {
  readonly turn: Turn;
  readonly items: RestoreItem[];
}

export interface RestoreOutcome {
  readonly filesChanged: string[];
  readonly filesFailed: string[];
}

const hashOf = (now: FileNow): string | null => (now.kind === "file" ? BlobStore.hashOf(now.bytes) : now.kind === "missing" ? null : UNKNOWN_AFTER);

/** The state of a turn in progress that its end compares against. */
interface Running {
  readonly turn: Turn;
  readonly root: string;
  /** The tracked tree before the turn and the snapshots of its dirty files; null without git. */
  pre: { readonly tree: TreeState; readonly snaps: Map<string, Before> } | null;
}

export class Checkpoints {
  private readonly blobs: BlobStore;
  private readonly log: TurnLog;
  private readonly running = new Map<string, Running>();
  private readonly trees = new Map<string, GitTree | null>();
  readonly fileCap: number;
  private readonly now: () => number;

  constructor(private readonly options: CheckpointOptions) {
    this.blobs = BlobStore.open(options.dir);
    this.log = new TurnLog((turn) => this.releaseTurn(turn));
    this.fileCap = Math.min(MAX_FILE_BYTES, options.maxBytes);
    this.now = options.now ?? Date.now;
  }

  status(): CheckpointStatus {
    return { bytes: this.blobs.bytes, count: this.blobs.count, evictions: this.log.evictions, maxBytes: this.options.maxBytes, turns: this.log.size };
  }

  private releaseTurn(turn: Turn): void {
    for (const touched of turn.files.values()) if (touched.before.hash !== null) this.blobs.release(touched.before.hash);
  }

  private tree(root: string): GitTree | null {
    if (!this.trees.has(root)) {
      const host = this.options.gitHost(root);
      this.trees.set(root, host === null ? null : new GitTree(host));
    }
    return this.trees.get(root) ?? null;
  }

  /**
   * Keeps `bytes` (a reference taken), evicting old turns if needed (`mayEvict`); the reason when it
   * cannot. A dirty file's snapshot at a turn's start may not evict: the turn may never touch it,
   * and finished turns are worth more than a just-in-case copy.
   */
  private keep(bytes: Uint8Array, running: Turn, mayEvict = true): { hash: string } | { unrestorable: string } {
    const hash = BlobStore.hashOf(bytes);
    const cost = this.blobs.cost(hash, bytes.byteLength);
    while (this.blobs.bytes + cost > this.options.maxBytes) {
      if (!mayEvict || !this.log.evictOldest(running)) return { unrestorable: "over_budget" };
    }
    this.blobs.add(hash, bytes);
    return { hash };
  }

  /** The content of `rel` now, kept as a turn's "before" (see `keep` for `mayEvict`). */
  private async snapshot(root: string, rel: string, turn: Turn, mayEvict = true): Promise<Before> {
    const now = await readNow(root, rel, this.fileCap);
    switch (now.kind) {
      case "missing":
        return { hash: null, mode: 0o644 };
      case "too_large":
        return { hash: null, mode: 0o644, unrestorable: "too_large" };
      case "unreadable":
        return { hash: null, mode: 0o644, unrestorable: "unreadable" };
      case "file": {
        const kept = this.keep(now.bytes, turn, mayEvict);
        return "hash" in kept ? { hash: kept.hash, mode: now.mode } : { hash: null, mode: now.mode, unrestorable: kept.unrestorable };
      }
    }
  }

  /** A turn of `sessionId` starts in workspace `root` (before its prompt reaches the agent). */
  async turnStarted(sessionId: string, root: string, promptId: string): Promise<void> {
    // A turn whose end never came (its agent went away) is closed as it stands: its files' state after is unknown.
    const stale = this.running.get(sessionId);
    if (stale) this.abandon(stale);
    const turn = this.log.start(sessionId, promptId, this.now());
    const running: Running = { turn, root, pre: null };
    this.running.set(sessionId, running);
    const tree = await this.tree(root)?.state();
    if (!tree || turn.finished) return;
    const snaps = new Map<string, Before>();
    for (const rel of tree.dirty) snaps.set(rel, await this.snapshot(root, rel, turn, false));
    running.pre = { tree, snaps };
  }

  /** The running turn of `sessionId` is about to write `path` (absolute or workspace-relative). */
  async beforeWrite(sessionId: string, path: string): Promise<boolean> {
    const running = this.running.get(sessionId);
    if (!running) return false;
    let rel: string;
    try {
      rel = normalizeRequestPath(running.root, path);
    } catch {
      return false; // outside the workspace: the write itself is refused there
    }
    if (rel === "" || running.turn.files.has(rel)) return true;
    const pre = running.pre?.snaps.get(rel);
    if (pre) {
      if (pre.hash !== null) this.blobs.retain(pre.hash);
      this.keepRecord(running.turn, rel, { before: pre, source: "tool" });
      return true;
    }
    const before = await this.snapshot(running.root, rel, running.turn);
    // Another write of the same file may have recorded it while this one read.
    if (running.turn.files.has(rel)) {
      if (before.hash !== null) this.blobs.release(before.hash);
    } else this.keepRecord(running.turn, rel, { before, source: "tool" });
    return true;
  }

  /** The agent answered the turn: adds the tracked files shell commands changed, and what each file is now. */
  async turnFinished(sessionId: string, promptId: string): Promise<void> {
    const running = this.running.get(sessionId);
    if (!running || running.turn.promptId !== promptId) return;
    this.running.delete(sessionId);
    const { turn, root, pre } = running;
    if (pre) {
      const tree = this.tree(root)!;
      const post = await tree.state();
      const candidates = new Set([...pre.tree.dirty, ...(post?.dirty ?? []), ...(await tree.committed(pre.tree.head, post?.head ?? null))]);
      for (const rel of candidates) {
        if (turn.files.has(rel)) continue;
        const snap = pre.snaps.get(rel);
        if (snap) {
          if (snap.hash !== null) this.blobs.retain(snap.hash);
          this.keepRecord(turn, rel, { before: snap, source: "shell" });
          continue;
        }
        const atHead = pre.tree.head === null ? "unrestorable" : await tree.contentAt(pre.tree.head, rel, this.fileCap);
        const before: Before =
          atHead === null ? { hash: null, mode: 0o644 } : atHead === "unrestorable" ? { hash: null, mode: 0o644, unrestorable: "not_in_git" } : this.headBefore(atHead.bytes, atHead.mode, turn);
        this.keepRecord(turn, rel, { before, source: "shell" });
      }
      for (const snap of pre.snaps.values()) if (snap.hash !== null) this.blobs.release(snap.hash);
    }
    for (const [rel, touched] of turn.files) {
      touched.after = hashOf(await readNow(root, rel, this.fileCap));
      // No net change (written back as it was, or a tracked file the turn did not touch).
      if (touched.before.unrestorable === undefined && touched.after === touched.before.hash) {
        if (touched.before.hash !== null) this.blobs.release(touched.before.hash);
        this.log.unrecord(turn, rel);
      }
    }
    turn.finished = true;
  }

  private abandon(running: Running): void {
    this.running.delete(running.turn.sessionId);
    for (const snap of running.pre?.snaps.values() ?? []) if (snap.hash !== null) this.blobs.release(snap.hash);
    running.turn.finished = true;
  }

  /** Records a file of `turn`, or releases its blob when the log has no room for it. */
  private keepRecord(turn: Turn, rel: string, touched: Touched): void {
    if (!this.log.record(turn, rel, touched) && touched.before.hash !== null) this.blobs.release(touched.before.hash);
  }

  private headBefore(bytes: Buffer, mode: number, turn: Turn): Before {
    const kept = this.keep(bytes, turn);
    return "hash" in kept ? { hash: kept.hash, mode } : { hash: null, mode, unrestorable: kept.unrestorable };
  }

  /** Whether `sessionId` has a turn whose end is not recorded yet. */
  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  snapshots(sessionId: string): TurnView[] {
    return this.log.turnsOf(sessionId).map((turn) => {
      const files = [...turn.files].map(([path, t]) => viewOf(path, t));
      return {
        promptId: turn.promptId,
        turnIndex: turn.index,
        timestamp: new Date(turn.startedAt).toISOString(),
        diffStats: { filesChanged: files.length + turn.omitted },
        files,
        ...(turn.omitted > 0 ? { filesOmitted: turn.omitted } : {}),
      };
    });
  }

  /** What rewinding `sessionId` to before turn `promptId` restores; null when no such turn is known. */
  plan(sessionId: string, promptId: string): RewindPlan | null {
    const turns = this.log.turnsOf(sessionId);
    const at = turns.findIndex((t) => t.promptId === promptId);
    if (at < 0) return null;
    const items = new Map<string, { before: Before; expected: string | null; unattributed: boolean }>();
    for (const turn of turns.slice(at))
      for (const [path, touched] of turn.files) {
        const first = items.get(path);
        items.set(path, { before: first?.before ?? touched.before, expected: touched.after ?? UNKNOWN_AFTER, unattributed: (first?.unattributed ?? false) || touched.source === "shell" });
      }
    return { turn: turns[at]!, items: [...items].map(([path, item]) => ({ path, ...item })) };
  }

  /** The plan's files that are not what the session left them as (changed outside it since), and those whose change svc cannot attribute. */
  async conflicts(root: string, plan: RewindPlan): Promise<string[]> {
    const changed: string[] = [];
    for (const item of plan.items) {
      if (item.unattributed) {
        changed.push(item.path);
        continue;
      }
      const now = hashOf(await readNow(root, item.path, this.fileCap));
      if (item.expected === UNKNOWN_AFTER || now !== item.expected) changed.push(item.path);
    }
    return changed;
  }

  /** Puts the plan's files back; each that cannot be is listed in `filesFailed`. */
  async restore(root: string, plan: RewindPlan): Promise<RestoreOutcome> {
    const filesChanged: string[] = [];
    const filesFailed: string[] = [];
    for (const item of plan.items) {
      const { before } = item;
      try {
        if (before.unrestorable !== undefined) throw new Error(before.unrestorable);
        if (before.hash === null) await removeFile(root, item.path);
        else await restoreFile(root, item.path, this.blobs.read(before.hash), before.mode);
        filesChanged.push(item.path);
      } catch (err) {
        this.options.logger.warn("rewind could not restore a file", { path: item.path, error: (err as Error).message });
        filesFailed.push(item.path);
      }
    }
    return { filesChanged, filesFailed };
  }

  /** After a rewind to before `turn`: the turns from it on are gone (`conversation`), or only their file records. */
  forget(turn: Turn, conversation: boolean): void {
    if (conversation) {
      this.log.dropFrom(turn);
      return;
    }
    const turns = this.log.turnsOf(turn.sessionId);
    this.log.clearFiles(turns.slice(turns.indexOf(turn)));
  }
}

function viewOf(path: string, touched: Touched): FileChangeView {
  const change = touched.before.hash === null && touched.before.unrestorable === undefined ? "created" : touched.after === null ? "deleted" : "modified";
  return { path, change, source: touched.source, restorable: touched.before.unrestorable === undefined, ...(touched.before.unrestorable === undefined ? {} : { reason: touched.before.unrestorable }) };
}
