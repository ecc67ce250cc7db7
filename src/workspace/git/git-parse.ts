/**
 * Parsers of `git` output for the read-only views, and the answers' shapes (the reference daemon's,
 * `@qwen-code/qwen-code` 0.24.4). Pure: no I/O. Every parser takes output that may have been cut
 * at a byte bound, and drops a last record it cannot read whole.
 */

/** Files listed in a diff or commit answer; the rest are counted in `hiddenCount`. */
export const MAX_LISTED_FILES = 50;
/** Diff lines kept per file (`+`, `-`, ` `); past it the file's hunks end and carry `truncated`. */
export const MAX_LINES_PER_FILE = 400;

export interface BranchSummary {
  branch: string | null;
  detached: boolean;
  hasUpstream: boolean;
  ahead: number;
  behind: number;
}

export interface TreeCounts {
  staged: number;
  unstaged: number;
  untracked: number;
  conflicted: number;
}

/** The `## ` line of `git status --porcelain=v1 --branch`. */
export function parseStatusBranchLine(line: string): BranchSummary {
  const none: BranchSummary = { branch: null, detached: false, hasUpstream: false, ahead: 0, behind: 0 };
  if (!line.startsWith("## ")) return none;
  let desc = line.slice(3);
  if (desc.startsWith("HEAD (no branch)")) return { ...none, detached: true };
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(desc);
  if (unborn) return { ...none, branch: unborn[1] ?? null };
  let ahead = 0;
  let behind = 0;
  const bracket = / \[([^\]]*)\]$/.exec(desc);
  if (bracket) {
    ahead = Number(/ahead (\d+)/.exec(bracket[1]!)?.[1] ?? 0);
    behind = Number(/behind (\d+)/.exec(bracket[1]!)?.[1] ?? 0);
    desc = desc.slice(0, bracket.index).trimEnd();
  }
  const sep = desc.lastIndexOf("...");
  return { branch: (sep >= 0 ? desc.slice(0, sep) : desc) || null, detached: false, hasUpstream: sep >= 0, ahead, behind };
}

/** The entries of `git status --porcelain=v1 -z` (after the branch line), counted. */
export function countStatusEntries(tokens: readonly string[]): TreeCounts {
  const counts: TreeCounts = { staged: 0, unstaged: 0, untracked: 0, conflicted: 0 };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.length < 3 || token[2] !== " ") continue;
    const x = token[0]!;
    const y = token[1]!;
    if (x === "?" && y === "?") counts.untracked++;
    else if (x === "!" && y === "!") continue;
    else if (x === "U" || y === "U" || (x === "D" && y === "D") || (x === "A" && y === "A")) counts.conflicted++;
    else {
      if (x !== " ") counts.staged++;
      if (y !== " ") counts.unstaged++;
      // A rename or copy is followed by its source path.
      if (x === "R" || x === "C" || y === "R" || y === "C") i++;
    }
  }
  return counts;
}

/** NUL-separated records, the last dropped when the output was cut (it may be partial). */
export function nulRecords(output: string, truncated: boolean): string[] {
  const records = output.split("\0");
  if (truncated || records.at(-1) === "") records.pop();
  return records;
}

export interface NumstatEntry {
  path: string;
  oldPath?: string;
  added: number;
  removed: number;
  isBinary: boolean;
}

/** `--numstat -z` output (renames: an empty path, then the old and new paths). */
export function parseNumstat(output: string, truncated: boolean): NumstatEntry[] {
  const entries: NumstatEntry[] = [];
  const tokens = nulRecords(output, truncated);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!.replace(/^\n/, "");
    const parts = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(token);
    if (!parts) continue;
    const isBinary = parts[1] === "-" || parts[2] === "-";
    const stats = { added: isBinary ? 0 : Number(parts[1]), removed: isBinary ? 0 : Number(parts[2]), isBinary };
    if (parts[3] !== "") entries.push({ path: parts[3]!, ...stats });
    else if (i + 2 < tokens.length) {
      entries.push({ path: tokens[i + 2]!, oldPath: tokens[i + 1]!, ...stats });
      i += 2;
    }
  }
  return entries;
}

/** Paths `--name-status -z` reports deleted. */
export function deletedPaths(output: string, truncated: boolean): Set<string> {
  const out = new Set<string>();
  const tokens = nulRecords(output, truncated);
  for (let i = 0; i < tokens.length; i++) {
    const status = tokens[i]!;
    if (status === "D" && i + 1 < tokens.length) out.add(tokens[i + 1]!);
    i += /^[RC]/.test(status) ? 2 : 1;
  }
  return out;
}

/** `git diff --shortstat`: "N files changed, A insertions(+), D deletions(-)". */
export function parseShortstat(output: string): { filesCount: number; linesAdded: number; linesRemoved: number } {
  return {
    filesCount: Number(/(\d+) files? changed/.exec(output)?.[1] ?? 0),
    linesAdded: Number(/(\d+) insertions?\(\+\)/.exec(output)?.[1] ?? 0),
    linesRemoved: Number(/(\d+) deletions?\(-\)/.exec(output)?.[1] ?? 0),
  };
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The hunks of one file's unified diff, at most MAX_LINES_PER_FILE lines; `truncated` when lines were left out. */
export function parseFileHunks(output: string, cut: boolean): { hunks: Hunk[]; truncated: boolean } {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  let count = 0;
  const lines = output.split("\n");
  if (cut) lines.pop();
  let truncated = cut;
  for (const line of lines) {
    if (line.startsWith("diff --git ") && hunks.length + (current ? 1 : 0) > 0) break;
    const head = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (head) {
      if (current) hunks.push(current);
      current = { oldStart: Number(head[1]), oldLines: Number(head[2] ?? 1), newStart: Number(head[3]), newLines: Number(head[4] ?? 1), lines: [] };
      continue;
    }
    if (!current) continue;
    if (line.startsWith("+") || line.startsWith("-") || line.startsWith(" ")) {
      if (count >= MAX_LINES_PER_FILE) {
        truncated = true;
        break;
      }
      current.lines.push(line);
      count++;
    } else if (line.startsWith("\\")) current.lines.push(line);
  }
  if (current) hunks.push(current);
  return { hunks, truncated };
}

export interface LogEntry {
  sha: string;
  shortSha: string;
  authorName: string;
  authorEmail: string;
  authorDate: number;
  subject: string;
  refs?: string;
  parents: string[];
}

/** `%H %h %an %ae %at %s %D %P`, NUL-separated, then a last field (`%ct` or `%b`). */
export const LOG_FORMAT = "%H%x00%h%x00%an%x00%ae%x00%at%x00%s%x00%D%x00%P%x00%ct%x00";
export const LOG_DETAIL_FORMAT = "%H%x00%h%x00%an%x00%ae%x00%at%x00%s%x00%D%x00%P%x00%b%x00";
const LOG_FIELDS = 9;

/** Log records of LOG_FORMAT / LOG_DETAIL_FORMAT (`-z` separates records with one more NUL); a partial last record is dropped. */
export function parseLogRecords(output: string, truncated: boolean): { entry: LogEntry; last: string }[] {
  const fields = output.split("\0");
  const records: { entry: LogEntry; last: string }[] = [];
  let i = 0;
  for (;;) {
    while (i < fields.length && fields[i] === "") i++;
    if (i + LOG_FIELDS > fields.length) break;
    // The last field of a record is followed by its NUL, so a record is complete when one more field follows.
    if (truncated && i + LOG_FIELDS >= fields.length) break;
    const f = fields.slice(i, i + LOG_FIELDS);
    i += LOG_FIELDS;
    const sha = f[0]!.replace(/^\n/, "");
    if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
    records.push({
      entry: {
        sha,
        shortSha: f[1]!,
        authorName: f[2]!,
        authorEmail: f[3]!,
        authorDate: Number.parseInt(f[4]!, 10) || 0,
        subject: f[5]!,
        ...(f[6] ? { refs: f[6] } : {}),
        parents: f[7] ? f[7].split(" ").filter(Boolean) : [],
      },
      last: f[8]!,
    });
  }
  return records;
}

export interface BranchEntry {
  name: string;
  isHead: boolean;
  upstream?: string;
  upstreamGone?: true;
  ahead: number;
  behind: number;
  pushTarget?: string;
  pushAhead?: number;
  pushBehind?: number;
  pushGone?: true;
  commitDate: number;
  commitSubject: string;
}

export const BRANCH_FORMAT = "%(refname:short)%00%(HEAD)%00%(upstream:short)%00%(upstream:track,nobracket)%00%(committerdate:unix)%00%(subject)%00%(symref)%00%(push:short)%00%(push:track,nobracket)";
export const TAG_FORMAT = "%(refname:short)%00%(creatordate:unix)%00%(subject)";

const countOf = (word: string, track: string) => Number(new RegExp(`${word} (\\d+)`).exec(track)?.[1] ?? 0);

/** `for-each-ref --format=BRANCH_FORMAT` lines (symbolic refs such as `origin/HEAD` left out). */
export function parseBranchLines(output: string, truncated: boolean): BranchEntry[] {
  const lines = output.split("\n");
  if (truncated) lines.pop();
  const out: BranchEntry[] = [];
  for (const line of lines) {
    const p = line.split("\0");
    if (p.length < 9 || p[6]) continue;
    const upstream = p[2] || undefined;
    const track = p[3] ?? "";
    const pushTarget = p[7] || undefined;
    const pushTrack = p[8] ?? "";
    const pushGone = pushTarget !== undefined && /\bgone\b/.test(pushTrack);
    out.push({
      name: p[0]!,
      isHead: p[1] === "*",
      ...(upstream === undefined ? {} : { upstream }),
      ...(upstream !== undefined && /\bgone\b/.test(track) ? { upstreamGone: true as const } : {}),
      ahead: countOf("ahead", track),
      behind: countOf("behind", track),
      ...(pushTarget === undefined ? {} : { pushTarget }),
      ...(pushTarget !== undefined && !pushGone ? { pushAhead: countOf("ahead", pushTrack), pushBehind: countOf("behind", pushTrack) } : {}),
      ...(pushGone ? { pushGone: true as const } : {}),
      commitDate: Number.parseInt(p[4] ?? "", 10) || 0,
      commitSubject: p[5] ?? "",
    });
  }
  return out;
}

/** `for-each-ref --format=TAG_FORMAT` lines. */
export function parseTagLines(output: string, truncated: boolean): { name: string; date: number; subject: string }[] {
  const lines = output.split("\n");
  if (truncated) lines.pop();
  return lines.filter((l) => l.includes("\0")).map((line) => {
    const p = line.split("\0");
    return { name: p[0]!, date: Number.parseInt(p[1] ?? "", 10) || 0, subject: p[2] ?? "" };
  });
}

/** Most branch names `recent` lists. */
const MAX_RECENT_BRANCHES = 20;

/** Branches checked out before, newest first, from `reflog show --format=%gs` (not the current one, not bare commits). */
export function parseRecentBranches(output: string, head: string): string[] {
  const seen = new Set<string>();
  for (const line of output.split("\n")) {
    if (!line.startsWith("checkout: moving from ")) continue;
    const at = line.indexOf(" to ");
    const branch = at === -1 ? "" : line.slice(at + 4);
    if (branch && branch !== head && !/^[0-9a-f]{7,40}$/.test(branch)) seen.add(branch);
    if (seen.size >= MAX_RECENT_BRANCHES) break;
  }
  return [...seen];
}

export interface RemoteEntry {
  name: string;
  fetchUrl: string;
  pushUrl: string;
  extraFetchUrls: number;
  extraPushUrls: number;
  promisor: boolean;
  partialCloneFilter?: string;
  customRefspec: boolean;
  otherSettings: number;
}

/**
 * Remotes from `git config --list --show-scope -z` (records `scope\0key\nvalue\0`): only the
 * repository's own sections (`local`, `worktree`) are remotes of it; `promisor` counts from any scope.
 */
export function parseRemotes(output: string, truncated: boolean): RemoteEntry[] {
  const records = nulRecords(output, truncated);
  interface Section { urls: string[]; pushUrls: string[]; refspecs: string[]; partialCloneFilter?: string; promisor: boolean; other: number }
  const sections = new Map<string, Section>();
  const promisor = new Map<string, boolean>();
  for (let i = 0; i + 1 < records.length; i += 2) {
    const scope = records[i]!;
    const entry = records[i + 1]!;
    const nl = entry.indexOf("\n");
    const key = nl === -1 ? entry : entry.slice(0, nl);
    const value = nl === -1 ? "" : entry.slice(nl + 1);
    if (!key.startsWith("remote.")) continue;
    const rest = key.slice("remote.".length);
    const dot = rest.lastIndexOf(".");
    if (dot <= 0) continue;
    const name = rest.slice(0, dot);
    const sub = rest.slice(dot + 1);
    if (sub === "promisor") promisor.set(name, value === "" || /^(true|yes|on|1)$/i.test(value));
    if (scope !== "local" && scope !== "worktree") continue;
    let section = sections.get(name);
    if (!section) sections.set(name, (section = { urls: [], pushUrls: [], refspecs: [], promisor: false, other: 0 }));
    if (sub === "url") section.urls.push(value);
    else if (sub === "pushurl") section.pushUrls.push(value);
    else if (sub === "fetch") section.refspecs.push(value);
    else if (sub === "partialclonefilter") section.partialCloneFilter = value;
    else if (sub !== "promisor") section.other++;
  }
  return [...sections].map(([name, s]) => {
    const fetchUrl = s.urls[0] ?? "";
    return {
      name,
      fetchUrl,
      pushUrl: s.pushUrls[0] ?? fetchUrl,
      extraFetchUrls: Math.max(0, s.urls.length - 1),
      extraPushUrls: Math.max(0, (s.pushUrls.length > 0 ? s.pushUrls.length : s.urls.length) - 1),
      promisor: promisor.get(name) ?? false,
      ...(s.partialCloneFilter === undefined ? {} : { partialCloneFilter: s.partialCloneFilter }),
      customRefspec: s.refspecs.some((r) => r !== `+refs/heads/*:refs/remotes/${name}/*`),
      otherSettings: s.other,
    };
  });
}
