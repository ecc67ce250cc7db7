/**
 * `GET /workspace/git/log` (a page of commits, newest first, optionally of a range, of every ref, or
 * matching a search) and `GET /workspace/git/log/commit` (one commit with its files), the
 * reference's v1 shapes; `available: false` outside a repository or for an unknown commit.
 */
import { SAFE_DIFF_OPTIONS } from "./git-args.ts";
import { MAX_SEARCH_CHARS } from "./git-limits.ts";
import { LOG_DETAIL_FORMAT, LOG_FORMAT, MAX_LISTED_FILES, parseLogRecords, parseNumstat, type LogEntry } from "./git-parse.ts";
import type { GitSession } from "./git-session.ts";

/** Bytes of a commit's metadata (message included) read; a longer body is cut. */
const COMMIT_META_BYTES = 1024 * 1024;
/** A range git is given: revision characters only, never an option. */
const SAFE_RANGE = /^[A-Za-z0-9_./~^-]+$/;
const ALL_REVISIONS = ["HEAD", "--branches", "--tags", "--remotes"];

export const isSafeRange = (range: string) => !range.startsWith("-") && !range.startsWith("..") && SAFE_RANGE.test(range);

export interface LogBody {
  v: 1;
  workspaceCwd: string;
  available: boolean;
  entries: LogEntry[];
  hasMore: boolean;
}

export interface LogQuery {
  limit: number;
  skip: number;
  range?: string;
  all: boolean;
  search?: string;
}

interface Dated {
  entry: LogEntry;
  commitDate: number;
}

/** The commits of one walk, and whether its output was cut at the run's byte bound (older ones went unread). */
interface Walk {
  found: Dated[];
  cut: boolean;
}

async function walk(git: GitSession, args: readonly string[]): Promise<Walk | null> {
  const r = await git.git(["log", "-z", `--format=${LOG_FORMAT}`, "--date-order", ...args, "--"]);
  if (r.code !== 0 && !r.truncated) return null;
  return { found: parseLogRecords(r.stdout, r.truncated).map(({ entry, last }) => ({ entry, commitDate: Number.parseInt(last, 10) || 0 })), cut: r.truncated };
}

export async function gitLog(git: GitSession | null, workspaceCwd: string, q: LogQuery): Promise<LogBody> {
  const none: LogBody = { v: 1, workspaceCwd, available: false, entries: [], hasMore: false };
  if (git === null || (await git.repo()) === null) return none;
  const revisions = q.all ? ALL_REVISIONS : q.range !== undefined && isSafeRange(q.range) ? ["--end-of-options", q.range] : [];
  const search = q.search?.trim().slice(0, MAX_SEARCH_CHARS);
  if (search) {
    // Commits whose message or author matches, and the commit the text abbreviates: merged, newest first.
    const window = ["-n", String(q.skip + q.limit + 1)];
    const runs = [walk(git, ["-i", "--fixed-strings", `--grep=${search}`, ...window, ...revisions]), walk(git, ["-i", "--fixed-strings", `--author=${search}`, ...window, ...revisions])];
    if (/^[0-9a-f]{4,40}$/i.test(search)) runs.push(walk(git, ["--no-walk", "--end-of-options", `${search}^{commit}`]));
    const walks = (await Promise.all(runs)).filter((w) => w !== null);
    const bySha = new Map<string, Dated>();
    for (const w of walks) for (const d of w.found) if (!bySha.has(d.entry.sha)) bySha.set(d.entry.sha, d);
    // A cut walk read its matches down to its last commit's date only: older merged commits may miss
    // some of its matches, so the page ends there, and more are said to follow.
    const cuts = walks.filter((w) => w.cut).map((w) => w.found.at(-1)?.commitDate ?? Number.POSITIVE_INFINITY);
    const readTo = cuts.length === 0 ? Number.NEGATIVE_INFINITY : Math.max(...cuts);
    const sorted = [...bySha.values()].sort((a, b) => b.commitDate - a.commitDate).filter((d) => d.commitDate >= readTo).map((d) => d.entry);
    return { ...none, available: true, entries: sorted.slice(q.skip, q.skip + q.limit), hasMore: cuts.length > 0 || sorted.length > q.skip + q.limit };
  }
  const walked = await walk(git, ["-n", String(q.limit + 1), ...(q.skip > 0 ? ["--skip", String(q.skip)] : []), ...revisions]);
  if (walked === null) {
    // No commits yet: an empty history, not an unavailable one.
    const head = await git.git(["rev-parse", "--verify", "--quiet", "HEAD"]);
    return head.code === 0 ? none : { ...none, available: true };
  }
  return { ...none, available: true, entries: walked.found.slice(0, q.limit).map((d) => d.entry), hasMore: walked.cut || walked.found.length > q.limit };
}

export interface CommitBody {
  v: 1;
  workspaceCwd: string;
  available: boolean;
  sha?: string;
  shortSha?: string;
  authorName?: string;
  authorEmail?: string;
  authorDate?: number;
  subject?: string;
  body?: string;
  refs?: string;
  parents?: string[];
  files?: { path: string; added: number; removed: number; isBinary: boolean }[];
  filesCount?: number;
  linesAdded?: number;
  linesRemoved?: number;
  hiddenCount?: number;
}

/** One commit; `sha` is 7 to 40 hex digits (the route checks). */
export async function gitCommit(git: GitSession | null, workspaceCwd: string, sha: string): Promise<CommitBody> {
  const none: CommitBody = { v: 1, workspaceCwd, available: false };
  if (git === null || (await git.repo()) === null) return none;
  const meta = await git.git(["log", "-1", "-z", `--format=${LOG_DETAIL_FORMAT}`, "--end-of-options", sha, "--"], { maxBytes: COMMIT_META_BYTES });
  if (meta.code !== 0 && !meta.truncated) return none;
  // A cut message still has its fields before the body: close the record so the body is kept as read.
  const record = parseLogRecords(meta.truncated ? `${meta.stdout}\0\0` : meta.stdout, false)[0];
  if (record === undefined) return none;
  const { entry } = record;
  const range = entry.parents.length > 1 ? [`${entry.sha}^1`, entry.sha] : ["--root", entry.sha];
  const stat = await git.git(["diff-tree", ...SAFE_DIFF_OPTIONS, "--no-commit-id", "--numstat", "-M", "-r", "-z", ...range, "--"]);
  const changed = stat.code === 0 || stat.truncated ? parseNumstat(stat.stdout, stat.truncated) : [];
  const files = changed.slice(0, MAX_LISTED_FILES).map((f) => ({ path: f.path, added: f.added, removed: f.removed, isBinary: f.isBinary }));
  return {
    v: 1,
    workspaceCwd,
    available: true,
    sha: entry.sha,
    shortSha: entry.shortSha,
    authorName: entry.authorName,
    authorEmail: entry.authorEmail,
    authorDate: entry.authorDate,
    subject: entry.subject,
    body: record.last.replace(/\n$/, ""),
    ...(entry.refs === undefined ? {} : { refs: entry.refs }),
    parents: entry.parents,
    files,
    filesCount: changed.length,
    linesAdded: changed.reduce((n, f) => n + f.added, 0),
    linesRemoved: changed.reduce((n, f) => n + f.removed, 0),
    hiddenCount: changed.length - files.length,
  };
}
