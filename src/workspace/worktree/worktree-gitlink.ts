/**
 * Whether a folder is a linked worktree of the workspace's own repository, read from the files git
 * keeps for one (no git run, synchronous, for `worktree-root.ts`): the folder's `.git` file names an
 * admin folder `<workspace's common git dir>/worktrees/<name>`, whose `gitdir` file names that
 * `.git` file back. A `.git` file naming any
 * other repository (a checkout swapped for a folder pointing elsewhere) is no checkout of the workspace.
 */
import { closeSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A `.git`, `gitdir` or `commondir` file is one path: longer is no file git wrote. */
const MAX_LINK_FILE_BYTES = 4096;

/** The text of the small regular file at `path` (no link), or null (absent, not a file, too long). */
function readSmall(path: string): string | null {
  try {
    if (!lstatSync(path).isFile()) return null;
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(MAX_LINK_FILE_BYTES + 1);
      const size = readSync(fd, buffer, 0, buffer.length, 0);
      return size > MAX_LINK_FILE_BYTES ? null : buffer.toString("utf8", 0, size);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The one path in a file git wrote (a `.git` file's `gitdir: <path>`, or a bare path), resolved from `base`. */
function pathIn(text: string | null, base: string, prefix = ""): string | null {
  if (text === null) return null;
  const line = text.replace(/\r?\n$/, "");
  if (!line.startsWith(prefix) || line.includes("\n")) return null;
  const path = line.slice(prefix.length);
  return path === "" ? null : resolve(base, path);
}

function real(path: string | null): string | null {
  if (path === null) return null;
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The real common git dir of the repository whose top folder is `workspace`, or null. */
function commonDir(workspace: string): string | null {
  const dotGit = join(workspace, ".git");
  try {
    if (lstatSync(dotGit).isDirectory()) return real(dotGit);
  } catch {
    return null;
  }
  // The workspace is itself a linked worktree: its admin folder names the common dir.
  const gitDir = real(pathIn(readSmall(dotGit), workspace, "gitdir: "));
  return gitDir === null ? null : real(pathIn(readSmall(join(gitDir, "commondir")), gitDir));
}

/** Whether `checkout` (canonical) is a linked worktree of `workspace`'s repository, its admin folder pointing back at it. */
export function isOwnWorktree(workspace: string, checkout: string): boolean {
  const common = commonDir(workspace);
  const dotGit = join(checkout, ".git");
  const admin = real(pathIn(readSmall(dotGit), checkout, "gitdir: "));
  if (common === null || admin === null || dirname(admin) !== join(common, "worktrees")) return false;
  return pathIn(readSmall(join(admin, "gitdir")), admin) === dotGit;
}
