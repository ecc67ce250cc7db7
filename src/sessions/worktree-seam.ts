/**
 * The sessions' door to session worktrees (`src/workspace/worktree/`), loaded on the first
 * worktree session (an idle daemon never loads it). One `SessionWorktrees` per workspace; git runs
 * with the daemon's environment scrubbed (`runtime/child-env.ts`, then the git views' own rules),
 * with a longer time bound than the views' (a checkout of a large repository takes a while).
 */
import { childEnv } from "../runtime/child-env.ts";
import type { SessionWorktrees, WorktreeInfo } from "../workspace/worktree/index.ts";

export type { WorktreeInfo } from "../workspace/worktree/index.ts";

/** Time bound of one git run of a worktree create or removal. */
const WORKTREE_GIT_TIMEOUT_MS = 120_000;

/** The catalog's form of a worktree (JSON text), and back; null for a malformed one. */
export const worktreeText = (info: WorktreeInfo) => JSON.stringify({ slug: info.slug, path: info.path, branch: info.branch });

export function parseWorktree(text: string | null): WorktreeInfo | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const { slug, path, branch } = value;
    return typeof slug === "string" && typeof path === "string" && typeof branch === "string" ? { slug, path, branch } : null;
  } catch {
    return null;
  }
}

/** The worktree members of a session's records and answers (none for a session outside a worktree). */
export const worktreeFields = (info: WorktreeInfo | null) =>
  info === null ? {} : { worktree: { slug: info.slug, path: info.path, branch: info.branch }, worktreeState: "persisted-v1" as const, currentCwd: info.path };

export class WorktreeSeam {
  private loading: Promise<(root: string) => SessionWorktrees> | null = null;
  /** Per workspace, the create in progress: creates run one at a time (the bound and the name checks hold, and a failed create never removes another's checkout). */
  private readonly creating = new Map<string, Promise<unknown>>();

  constructor(private readonly baseEnv: Readonly<Record<string, string>>) {}

  /** A new worktree of the workspace at canonical `root` (`SessionWorktrees.create`), after any other create there. */
  async create(root: string, slug: string | undefined): Promise<WorktreeInfo> {
    const worktrees = await this.of(root);
    const before = this.creating.get(root) ?? Promise.resolve();
    const done = before.catch(() => {}).then(() => worktrees.create(slug));
    this.creating.set(root, done);
    try {
      return await done;
    } finally {
      if (this.creating.get(root) === done) this.creating.delete(root);
    }
  }

  /** The worktrees of the workspace at canonical `root`. */
  async of(root: string): Promise<SessionWorktrees> {
    this.loading ??= Promise.all([import("../workspace/worktree/index.ts"), import("../runtime/git-process.ts")]).then(([wt, git]) => {
      const baseEnv = childEnv(this.baseEnv);
      return (workspace: string) => new wt.SessionWorktrees({ root: workspace, baseEnv, runner: (path, env) => git.gitProcessRunner(path, env, WORKTREE_GIT_TIMEOUT_MS) });
    });
    return (await this.loading)(root);
  }
}
