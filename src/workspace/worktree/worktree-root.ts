/**
 * Which directory a session may work in, for the agent side (the built-in agent's `session/new`,
 * load, resume and fork `cwd`): the workspace itself, or one of its session worktrees, exactly
 * `<workspace>/.qwen/worktrees/<slug>` with a valid slug, reached through no link, and still a
 * checkout of the workspace's own repository (its `.git` file and the repository's admin folder for it
 * point at each other, `worktree-gitlink.ts`). Anything else is no root: a session never works outside its
 * workspace, and a worktree session's root is its checkout only.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isOwnWorktree } from "./worktree-gitlink.ts";
import { slugProblem } from "./worktree-slug.ts";

/** The folder holding a workspace's session worktrees. */
export const worktreesDir = (workspace: string) => join(workspace, ".qwen", "worktrees");

/** `cwd` when it is `workspace` (canonical) or one of its session worktrees as above; else null. */
export function sessionRoot(workspace: string, cwd: string): string | null {
  if (cwd === workspace) return workspace;
  if (dirname(cwd) !== worktreesDir(workspace) || slugProblem(basename(cwd)) !== null) return null;
  try {
    if (realpathSync(cwd) !== cwd) return null;
    return isOwnWorktree(workspace, cwd) ? cwd : null;
  } catch {
    return null;
  }
}
