/**
 * `GET /workspace/git`: the working tree's summary (branch, upstream distance, counts of staged,
 * unstaged, untracked and conflicted entries, stashes, an operation in progress), the reference's
 * v2 shape (`branch` is the commit's short id while HEAD is detached). Outside a repository, or without a usable git, only `{v: 2, workspaceCwd, branch: null}`.
 * In a workspace inside a larger repository the entry counts are of the workspace's files only (as
 * the diff lists are; the reference counts the whole repository): the branch, upstream distance,
 * stashes and operation stay the repository's.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, constants } from "node:fs";
import { SAFE_DIFF_OPTIONS, subtreePathspec } from "./git-args.ts";
import { countStatusEntries, nulRecords, parseStatusBranchLine } from "./git-parse.ts";
import type { GitSession, RepoPaths } from "./git-session.ts";

export type GitOperation = "rebase" | "merge" | "cherry-pick" | "revert" | "bisect";

export interface GitStatusBody {
  v: 2;
  workspaceCwd: string;
  branch: string | null;
  detached?: boolean;
  staged?: number;
  unstaged?: number;
  untracked?: number;
  conflicted?: number;
  hasUpstream?: boolean;
  ahead?: number;
  behind?: number;
  stashCount?: number;
  operation?: GitOperation;
  computedAt?: number;
}

/** Hex digits of the commit id that names a detached HEAD. */
const DETACHED_NAME_LENGTH = 7;
/** Bytes of the stash reflog read to count stashes (about 10,000 entries); the count stops there. */
const STASH_LOG_BYTES = 2 * 1024 * 1024;

const OPERATION_MARKERS: readonly (readonly [string, GitOperation])[] = [
  ["rebase-merge", "rebase"],
  ["rebase-apply", "rebase"],
  ["MERGE_HEAD", "merge"],
  ["CHERRY_PICK_HEAD", "cherry-pick"],
  ["REVERT_HEAD", "revert"],
  ["BISECT_LOG", "bisect"],
];

/** The operation in progress in the repository, read from its git directory's markers. */
export function operationOf(repo: RepoPaths): GitOperation | undefined {
  return OPERATION_MARKERS.find(([name]) => existsSync(`${repo.gitDir}/${name}`))?.[1];
}

/** Lines of the stash reflog (a regular file, links not followed), at most STASH_LOG_BYTES read. */
function stashCount(repo: RepoPaths): number {
  let fd: number;
  try {
    fd = openSync(`${repo.commonDir}/logs/refs/stash`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 0;
  }
  try {
    if (!fstatSync(fd).isFile()) return 0;
    const buf = Buffer.alloc(STASH_LOG_BYTES);
    const n = readSync(fd, buf, 0, STASH_LOG_BYTES, 0);
    return buf.subarray(0, n).toString("utf8").split("\n").filter((l) => l.trim() !== "").length;
  } catch {
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** `root` is the canonical workspace, `workspaceCwd` the directory the answer names. */
export async function gitStatus(git: GitSession | null, root: string, workspaceCwd: string): Promise<GitStatusBody> {
  const none: GitStatusBody = { v: 2, workspaceCwd, branch: null };
  if (git === null) return none;
  const repo = await git.repo();
  if (repo === null) return none;
  const r = await git.git(["status", "--porcelain=v1", "--branch", "-z", SAFE_DIFF_OPTIONS[3], "--", ...subtreePathspec(repo.top, root)], { cwd: repo.top });
  if (r.code !== 0 && !r.truncated) return none;
  const tokens = nulRecords(r.stdout, r.truncated);
  const branch = parseStatusBranchLine(tokens.shift() ?? "");
  const counts = countStatusEntries(tokens);
  const operation = operationOf(repo);
  // A detached HEAD is named by its commit's first DETACHED_NAME_LENGTH hex digits, as the reference names it.
  const head = branch.detached ? await git.git(["rev-parse", "--verify", "--quiet", "HEAD"]) : null;
  return {
    v: 2,
    workspaceCwd,
    branch: head?.code === 0 ? head.stdout.trim().slice(0, DETACHED_NAME_LENGTH) || null : branch.branch,
    detached: branch.detached,
    ...counts,
    hasUpstream: branch.hasUpstream,
    ahead: branch.ahead,
    behind: branch.behind,
    stashCount: stashCount(repo),
    ...(operation === undefined ? {} : { operation }),
    computedAt: Date.now(),
  };
}
