/**
 * `/glob`: files under a workspace directory whose path (relative to that directory) matches a
 * `Bun.Glob` pattern. The walk is our own rather than `Bun.Glob#scan`, which walks the whole tree
 * and holds every match before yielding the first: this one goes depth first with one open
 * directory per level (at most MAX_WALK_DEPTH), skips ignored directories unless asked not to, and
 * stops at `maxResults` or GLOB_SCAN_ENTRY_CAP. Memory therefore follows the caps and the
 * directories on the current path, not the tree. (Bun reads a directory's whole listing on the
 * first read of a `Dir`, so one huge directory costs its listing while it is being walked.)
 *
 * Symlinks are never followed nor returned (as `Bun.Glob` with `followSymlinks: false`), each
 * directory is opened through the contained open, and only walked entries are ever reported, so no
 * pattern can produce a path outside the workspace.
 */
import { lstat, stat } from "node:fs/promises";
import { openDirContained, resolveExisting, type ContainedDir } from "./contained-fs.ts";
import { ENTRIES_PER_YIELD, yieldToEventLoop } from "./directory-list.ts";
import { GLOB_SCAN_ENTRY_CAP, MAX_WALK_DEPTH } from "./file-limits.ts";
import { fromErrno, parseError, shownPath } from "./fs-errors.ts";
import { planGlob } from "./glob-plan.ts";
import { IgnoreRules, type RuleChain } from "./ignore-rules.ts";
import { joinRel } from "./paths.ts";

export interface GlobQuery {
  readonly pattern: string;
  /** Workspace-relative directory the pattern is relative to ("" = root). */
  readonly cwd: string;
  readonly maxResults: number;
  readonly includeIgnored: boolean;
}

export interface GlobResult {
  readonly matches: string[];
  readonly truncated: boolean;
}

interface Frame {
  readonly dir: ContainedDir;
  /** Workspace-relative path and real path of the directory, and its path below the walk's cwd. */
  readonly rel: string;
  readonly real: string;
  readonly fromCwd: string;
  /** Levels below the plan's prefix directory (0 for that directory). */
  readonly depth: number;
  /** The ignore rules that apply in the directory. */
  readonly chain: RuleChain;
}

/**
 * The walk's start: cwd plus the pattern's literal prefix, each prefix step a real directory (not a
 * symlink, not ignored unless asked). Null when the prefix does not exist, so nothing can match.
 */
async function startOf(root: string, query: GlobQuery, prefix: string, rules: IgnoreRules) {
  const cwdReal = await resolveExisting(root, query.cwd);
  if (!(await stat(cwdReal).catch((err) => Promise.reject(fromErrno(err, query.cwd)))).isDirectory())
    throw parseError(`cwd is not a directory: ${shownPath(query.cwd)}`);
  if (!query.includeIgnored && rules.match(query.cwd, true) !== null) return null;
  let rel = query.cwd;
  let real = cwdReal;
  let chain = rules.chainFor(rel);
  for (const segment of prefix === "" ? [] : prefix.split("/")) {
    rel = joinRel(rel, segment);
    real = `${real}/${segment}`;
    const st = await lstat(real).catch(() => null);
    if (st === null || !st.isDirectory()) return null;
    if (!query.includeIgnored && rules.ignores(chain, rel, true)) return null;
    chain = rules.childChain(chain, rel);
  }
  return { rel, real, chain };
}

export async function globSearch(root: string, query: GlobQuery): Promise<GlobResult> {
  const plan = planGlob(query.pattern);
  const glob = new Bun.Glob(plan.pattern);
  const rules = new IgnoreRules(root);
  const start = await startOf(root, query, plan.prefix, rules);
  if (start === null) return { matches: [], truncated: false };

  const matches: string[] = [];
  let truncated = false;
  const stack: Frame[] = [
    { dir: openDirContained(root, start.real, start.rel), rel: start.rel, real: start.real, fromCwd: plan.prefix, depth: 0, chain: start.chain },
  ];
  try {
    for (let scanned = 1; stack.length > 0; scanned++) {
      if (scanned % ENTRIES_PER_YIELD === 0) await yieldToEventLoop();
      if (scanned > GLOB_SCAN_ENTRY_CAP) {
        truncated = true;
        break;
      }
      const top = stack[stack.length - 1]!;
      const entry = top.dir.readSync();
      if (entry === null) {
        stack.pop()!.dir.close();
        continue;
      }
      const rel = joinRel(top.rel, entry.name);
      if (entry.isDirectory()) {
        if (plan.maxDepth !== null && top.depth + 1 >= plan.maxDepth) continue; // no match can lie below
        if (!query.includeIgnored && rules.ignores(top.chain, rel, true)) continue;
        if (stack.length >= MAX_WALK_DEPTH) {
          truncated = true;
          continue;
        }
        const real = `${top.real}/${entry.name}`;
        let dir: ContainedDir;
        try {
          dir = openDirContained(root, real, rel);
        } catch {
          continue; // unreadable, or swapped for a link since it was listed: not part of the result
        }
        stack.push({ dir, rel, real, fromCwd: joinRel(top.fromCwd, entry.name), depth: top.depth + 1, chain: rules.childChain(top.chain, rel) });
      } else if (entry.isFile() && glob.match(joinRel(top.fromCwd, entry.name))) {
        if (!query.includeIgnored && rules.ignores(top.chain, rel, false)) continue;
        if (matches.length === query.maxResults) {
          truncated = true;
          break;
        }
        matches.push(rel);
      }
    }
  } catch (err) {
    throw fromErrno(err, query.cwd);
  } finally {
    for (const frame of stack) frame.dir.close();
  }
  matches.sort();
  return { matches, truncated };
}
