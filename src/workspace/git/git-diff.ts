/**
 * `GET /workspace/git/diff` (the working tree against HEAD: totals and the first MAX_LISTED_FILES
 * files, untracked files included) and `GET /workspace/git/diff/file` (one file's hunks), the
 * reference's v1 shapes; in a workspace inside a larger repository, of the workspace's files only. Outside a repository, or while an operation (rebase, merge…) is in
 * progress, `available: false`. Bounded: past MAX_FILES_FOR_DETAILS changed files only the totals
 * are answered; a file's diff is read up to FILE_DIFF_BYTES and MAX_LINES_PER_FILE lines, then
 * marked `truncated`.
 */
import { outsideWorkspace } from "../fs-errors.ts";
import { absoluteOf, isInside, normalizeRequestPath } from "../paths.ts";
import { SAFE_DIFF_OPTIONS, subtreePathspec } from "./git-args.ts";
import { MAX_LINES_PER_FILE, MAX_LISTED_FILES, deletedPaths, nulRecords, parseFileHunks, parseNumstat, parseShortstat, type Hunk } from "./git-parse.ts";
import type { GitSession } from "./git-session.ts";
import { operationOf } from "./git-status.ts";
import { countLines, readUntracked, textLines } from "./untracked-read.ts";

/** Past this many changed files (tracked and untracked) the diff answers its totals only. */
export const MAX_FILES_FOR_DETAILS = 500;
/** Bytes of untracked files one diff list reads in all; past them a file is counted as no lines, marked truncated. */
export const UNTRACKED_LIST_BYTES = 8 * 1024 * 1024;
/** Bytes of one file's diff read; the rest is not. */
export const FILE_DIFF_BYTES = 1024 * 1024;

export interface DiffFileEntry {
  path: string;
  oldPath?: string;
  added: number;
  removed: number;
  isBinary: boolean;
  isUntracked: boolean;
  isDeleted: boolean;
  truncated: boolean;
}

export interface DiffListBody {
  v: 1;
  workspaceCwd: string;
  available: boolean;
  filesCount: number;
  linesAdded: number;
  linesRemoved: number;
  files: DiffFileEntry[];
  hiddenCount: number;
}

export interface DiffFileBody {
  v: 1;
  workspaceCwd: string;
  path: string;
  available: boolean;
  hunks: Hunk[];
  truncated?: true;
}

const unavailableList = (workspaceCwd: string): DiffListBody => ({ v: 1, workspaceCwd, available: false, filesCount: 0, linesAdded: 0, linesRemoved: 0, files: [], hiddenCount: 0 });

/** The repository's top level when a diff can be taken there now, else null. */
async function diffableTop(git: GitSession | null): Promise<string | null> {
  const repo = git === null ? null : await git.repo();
  if (repo === null || operationOf(repo) !== undefined) return null;
  return repo.top;
}

export async function gitDiffList(git: GitSession | null, root: string, workspaceCwd: string): Promise<DiffListBody> {
  const top = await diffableTop(git);
  if (git === null || top === null) return unavailableList(workspaceCwd);
  const at = { cwd: top };
  const within = subtreePathspec(top, root);
  const [short, others] = await Promise.all([git.git(["diff", ...SAFE_DIFF_OPTIONS, "--shortstat", "HEAD", "--", ...within], at), git.git(["ls-files", "-z", "--others", "--exclude-standard", "--", ...within], at)]);
  const untracked = nulRecords(others.stdout, others.truncated);
  const totals = short.code === 0 ? parseShortstat(short.stdout) : { filesCount: 0, linesAdded: 0, linesRemoved: 0 };
  if (others.truncated || totals.filesCount + untracked.length > MAX_FILES_FOR_DETAILS)
    return { v: 1, workspaceCwd, available: true, ...totals, filesCount: totals.filesCount + untracked.length, files: [], hiddenCount: totals.filesCount + untracked.length };

  const [numstat, names] = await Promise.all([git.git(["diff", ...SAFE_DIFF_OPTIONS, "--numstat", "-z", "HEAD", "--", ...within], at), git.git(["diff", ...SAFE_DIFF_OPTIONS, "--name-status", "-z", "HEAD", "--", ...within], at)]);
  const tracked = numstat.code === 0 || numstat.truncated ? parseNumstat(numstat.stdout, numstat.truncated) : [];
  const deleted = names.code === 0 || names.truncated ? deletedPaths(names.stdout, names.truncated) : new Set<string>();
  const files: DiffFileEntry[] = [];
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const e of tracked) {
    linesAdded += e.added;
    linesRemoved += e.removed;
    if (files.length < MAX_LISTED_FILES)
      files.push({ path: e.path, ...(e.oldPath === undefined ? {} : { oldPath: e.oldPath }), added: e.added, removed: e.removed, isBinary: e.isBinary, isUntracked: false, isDeleted: deleted.has(e.path), truncated: false });
  }
  let budget = UNTRACKED_LIST_BYTES;
  for (const path of untracked) {
    const read = budget > 0 ? await readUntracked(root, absoluteOf(top, path), budget) : { bytes: Buffer.alloc(0), isBinary: false, truncated: true };
    budget -= read?.bytes.length ?? 0;
    const added = read === null || read.isBinary ? 0 : countLines(read.bytes);
    linesAdded += added;
    if (files.length < MAX_LISTED_FILES) files.push({ path, added, removed: 0, isBinary: read?.isBinary ?? false, isUntracked: true, isDeleted: false, truncated: read?.truncated ?? false });
  }
  const filesCount = tracked.length + untracked.length;
  return { v: 1, workspaceCwd, available: true, filesCount, linesAdded, linesRemoved, files, hiddenCount: Math.max(0, filesCount - files.length) };
}

/** A repository-relative path from a query, refused unless it names something inside the workspace. */
function repoPath(root: string, top: string, raw: string): string {
  const rel = normalizeRequestPath(top, raw);
  if (rel === "" || !isInside(root, absoluteOf(top, rel))) throw outsideWorkspace("the path must name a file inside the workspace");
  return rel;
}

export async function gitDiffFile(git: GitSession | null, root: string, workspaceCwd: string, path: string, oldPath: string | undefined): Promise<DiffFileBody> {
  const none: DiffFileBody = { v: 1, workspaceCwd, path, available: false, hunks: [] };
  const top = await diffableTop(git);
  if (git === null || top === null) return none;
  const rel = repoPath(root, top, path);
  const oldRel = oldPath === undefined ? undefined : repoPath(root, top, oldPath);
  const at = { cwd: top };
  const diff = await git.git(["diff", ...SAFE_DIFF_OPTIONS, ...(oldRel === undefined ? [] : ["-M"]), "HEAD", "--", ...(oldRel === undefined ? [] : [oldRel]), rel], { ...at, maxBytes: FILE_DIFF_BYTES });
  const parsed = diff.code === 0 || diff.truncated ? parseFileHunks(diff.stdout, diff.truncated) : { hunks: [], truncated: false };
  if (parsed.hunks.length > 0) return { ...none, available: true, hunks: parsed.hunks, ...(parsed.truncated ? { truncated: true as const } : {}) };

  const listed = await git.git(["ls-files", "-z", "--others", "--exclude-standard", "--", rel], at);
  if (listed.code !== 0 || listed.stdout === "") return none;
  const read = await readUntracked(root, absoluteOf(top, rel));
  if (read === null || read.isBinary) return none;
  const lines = textLines(read.bytes.toString("utf8"));
  const kept = lines.slice(0, MAX_LINES_PER_FILE);
  const truncated = read.truncated || lines.length > kept.length;
  if (kept.length === 0) return { ...none, ...(truncated ? { truncated: true as const } : {}) };
  return { ...none, available: true, hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: kept.length, lines: kept.map((l) => `+${l}`) }], ...(truncated ? { truncated: true as const } : {}) };
}
