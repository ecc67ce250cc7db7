/**
 * Session worktrees (the `workspace/worktree/` seam, loaded on the first worktree session by
 * `sessions/worktree-seam.ts`): a fresh git worktree of the workspace's repository for one session,
 * at `<workspace>/.qwen/worktrees/<slug>` on a new branch `worktree-<slug>` from the workspace's
 * HEAD (the reference's place and names), so parallel sessions never edit the same checkout.
 *
 * git runs as the read-only views run it (`workspace/git/git-args.ts`): no hooks (`core.hooksPath`
 * is /dev/null, so no `post-checkout`), no fsmonitor, every filter the repository names emptied (no
 * LFS smudge on checkout; the names are read again inside the new worktree, whose configuration
 * can differ, before its files are written), no transport. The folders on the way are checked to be plain folders
 * (a repository could commit `.qwen` as a link to anywhere), the checkout's real path must be the
 * path asked for, and a workspace holds at most MAX_WORKTREES of them. A create that fails removes
 * what it made. Nothing here ever removes a worktree a session used: closing or deleting a session
 * leaves its worktree (and any uncommitted work in it) where it is, as the reference does.
 */
import { lstat, mkdir, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DaemonError } from "../../errors/daemon-error.ts";
import { GitSession, gitUnavailable, type GitHost } from "../git/git-session.ts";
import { sessionRoot, worktreesDir } from "./worktree-root.ts";
import { autoSlug, branchForSlug, slugProblem } from "./worktree-slug.ts";

/** Worktrees one workspace may hold (created by svc, counted on disk). */
export const MAX_WORKTREES = 16;

/** What a worktree session records: its name, its checkout's canonical path, its branch. */
export interface WorktreeInfo {
  readonly slug: string;
  readonly path: string;
  readonly branch: string;
}

const invalidSlug = (message: string) => new DaemonError(400, "worktree_invalid_slug", message);
const notGitRepo = (why: string) => new DaemonError(400, "worktree_not_git_repo", `Worktree isolation requires a git repository: ${why}`);
const taken = (slug: string, branch: string, why: string) =>
  new DaemonError(409, "worktree_exists", `Worktree "${slug}" cannot be made on branch ${branch}: ${why}; choose another name`, { slug, branch });
const createFailed = (why: string) => new DaemonError(500, "worktree_create_failed", `Failed to create worktree: ${why}`);

/** git's own error line (`fatal: …`/`error: …`), else its first line, for messages. */
const gitError = (text: string) => {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return (lines.find((l) => /^(fatal|error): /.test(l)) ?? lines[0] ?? "git failed").slice(0, 300);
};

export class SessionWorktrees {
  constructor(private readonly host: GitHost) {}

  private git(): GitSession {
    const session = GitSession.open(this.host, this.host.root);
    if (session === null) throw gitUnavailable("no git executable on PATH outside the workspace");
    return session;
  }

  /**
   * Makes a worktree named `requested` (a fresh name when absent): 400 `worktree_invalid_slug` (also
   * when git refuses the branch name), 400 `worktree_not_git_repo` (no repository, or one without a
   * commit), 400 `worktree_subfolder_unsupported` (the workspace is not the repository's top folder),
   * 409 `worktree_exists` (the folder, the branch, a branch under it or a tag of its name is taken),
   * 409 `worktree_limit_reached`, 500 `worktree_create_failed` (with git's own error line).
   */
  async create(requested: string | undefined): Promise<WorktreeInfo> {
    const slug = requested ?? autoSlug();
    const problem = slugProblem(slug);
    if (problem !== null) throw invalidSlug(problem);
    const git = this.git();
    const repo = await git.repo();
    if (repo === null) throw notGitRepo("the workspace is in no repository");
    // A checkout holds the whole repository: for a workspace in a subfolder of one, it would put the
    // rest of the repository (outside the workspace) inside the session's root.
    if (repo.top !== this.host.root)
      throw new DaemonError(400, "worktree_subfolder_unsupported", "Worktree sessions need the workspace to be its repository's top folder; this workspace is a subfolder of one", { repositoryTop: repo.top });
    const head = await git.git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
    const base = head.stdout.trim();
    if (head.code !== 0 || !/^[0-9a-f]{40,64}$/.test(base)) throw notGitRepo("the repository has no commit yet");
    const branch = branchForSlug(slug);
    // git's own branch-name rules (a name ending in "." passes the slug's rules, not git's).
    const format = await git.git(["check-ref-format", "--branch", branch]);
    if (format.code !== 0) throw invalidSlug(`git refuses the branch name ${branch}: ${gitError(format.stderr)}`);
    const dir = await this.plainDir();
    const path = join(dir, slug);
    if ((await readdir(dir)).length >= MAX_WORKTREES)
      throw new DaemonError(409, "worktree_limit_reached", `This workspace holds ${MAX_WORKTREES} worktrees already; remove one first`, { limit: MAX_WORKTREES });
    if (await exists(path)) throw taken(slug, branch, `the folder ${path} exists`);
    // The branch itself, a branch under it (`worktree-x/y` leaves no room for `worktree-x`), or a tag of
    // the same name (the branch's short name would be ambiguous).
    const refs = await git.git(["for-each-ref", "--count=1", "--format=%(refname)", `refs/heads/${branch}`, `refs/tags/${branch}`]);
    if (refs.code !== 0) throw createFailed(gitError(refs.stderr));
    if (refs.stdout.trim() !== "") throw taken(slug, branch, `the ref ${refs.stdout.trim()} exists`);
    await this.ignoreWorktrees();
    // Made empty, then checked out from inside: the repository's configuration can differ there
    // (`includeIf` on the new branch or on the new worktree's git folder), so the filters to empty
    // are read again in the new worktree before any file is written through one.
    const added = await git.git(["worktree", "add", "--no-checkout", "-b", branch, "--", path, base]);
    if (added.code !== 0) {
      await this.remove({ slug, path, branch });
      throw createFailed(gitError(added.stderr));
    }
    const inside = GitSession.open(this.host, path);
    const checkedOut = inside === null ? null : await inside.git(["reset", "--hard", "--quiet", "HEAD"]).catch(() => null);
    if (checkedOut === null || checkedOut.code !== 0) {
      await this.remove({ slug, path, branch });
      throw createFailed(checkedOut === null ? "the checkout could not be made" : gitError(checkedOut.stderr));
    }
    const real = await realpath(path).catch(() => null);
    if (real !== path) {
      await this.remove({ slug, path, branch });
      throw createFailed("the checkout is not where it was made");
    }
    return { slug, path, branch };
  }

  /** Removes a worktree svc just made (a failed create), and its branch; best effort, never throws. */
  async remove(info: WorktreeInfo): Promise<void> {
    try {
      const git = this.git();
      await git.git(["worktree", "remove", "--force", "--", info.path]);
      await git.git(["worktree", "prune"]);
      await git.git(["branch", "-D", info.branch]);
    } catch {
      // Nothing more to undo than what went.
    }
    // Only ever the folder named for the slug, inside the checked worktrees folder.
    if (slugProblem(info.slug) === null && info.path === join(worktreesDir(this.host.root), info.slug)) await rm(info.path, { recursive: true, force: true }).catch(() => {});
  }

  /**
   * The canonical checkout of a recorded worktree, checked as at its creation: a valid name, a real
   * path that is exactly `<workspace>/.qwen/worktrees/<slug>` (no link on the way) and still a
   * checkout (`.git` file). Null when it no longer is.
   */
  locate(info: WorktreeInfo): string | null {
    const expected = join(worktreesDir(this.host.root), info.slug);
    return info.path === expected && info.path !== this.host.root ? sessionRoot(this.host.root, expected) : null;
  }

  /** `.qwen/worktrees` made or found as plain folders (never through a link), canonical. */
  private async plainDir(): Promise<string> {
    const qwen = join(this.host.root, ".qwen");
    const dir = worktreesDir(this.host.root);
    for (const folder of [qwen, dir]) {
      const stat = await lstat(folder).catch(() => null);
      if (stat === null) await mkdir(folder).catch((err: NodeJS.ErrnoException) => { if (err.code !== "EEXIST") throw createFailed(`cannot make ${folder}`); });
      else if (!stat.isDirectory()) throw new DaemonError(409, "worktree_create_failed", `${folder} is not a plain folder`);
    }
    if ((await realpath(dir)) !== dir) throw new DaemonError(409, "worktree_create_failed", `${dir} is not a plain folder`);
    return dir;
  }

  /** `.qwen/.gitignore` naming `worktrees/`, when it does not exist (the reference writes it too): the workspace's status stays clean. */
  private async ignoreWorktrees(): Promise<void> {
    await writeFile(join(this.host.root, ".qwen", ".gitignore"), "# Written by svc: its session worktrees (and this file) stay out of the repository.\nworktrees/\n.gitignore\n", { flag: "wx" }).catch(() => {});
  }
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null)) !== null;
}
