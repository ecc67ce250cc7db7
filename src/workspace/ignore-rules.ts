/**
 * Which workspace paths are ignored: `.gitignore` and `.svcignore` in the workspace root and in any
 * directory below it (each file's patterns apply relative to its directory, deeper files win, as in
 * git), plus `.git` itself. Matching is the `ignore` package's; this file only layers directories.
 *
 * One instance serves one request, so edits to rule files take effect on the next request. Rule
 * files are read lazily per directory and cached, the cache bounded (least recently used evicted).
 */
import ignore, { type Ignore } from "ignore";
import { readSmallFileSync } from "./contained-fs.ts";
import { absoluteOf, joinRel } from "./paths.ts";

export type IgnoreMatch = "file" | "directory" | null;

const RULE_FILES = [".gitignore", ".svcignore"];
/** Bytes read of one rule file; a longer file's tail is not read (its last, cut line is dropped). */
const MAX_RULE_FILE_BYTES = 256 * 1024;
/** Directories whose rules are kept at once; more evict the least recently used (re-read on need). */
const MAX_CACHED_RULE_DIRS = 256;
/**
 * The `ignore` package remembers the verdict for every path it was asked about. To keep that memory
 * bounded during long walks, all rule sets are dropped (and rebuilt on demand) after this many tests.
 */
const TESTS_PER_RULE_RELOAD = 4096;
/** Always ignored, as git never shows its own directory. */
const BUILT_IN_RULES = [".git"];

export class IgnoreRules {
  private readonly cache = new Map<string, Ignore | null>();
  private tests = 0;

  /** `root` is the workspace's canonical path. */
  constructor(private readonly root: string) {}

  /**
   * Why `rel` is ignored: `directory` when a directory on its way (or `rel` itself, being one) is
   * ignored, `file` when the file itself is, null when it is not ignored.
   */
  match(rel: string, isDirectory: boolean): IgnoreMatch {
    if (rel === "") return null;
    for (let slash = rel.indexOf("/"); slash !== -1; slash = rel.indexOf("/", slash + 1))
      if (this.ignoresEntry(rel.slice(0, slash), true)) return "directory";
    if (!this.ignoresEntry(rel, isDirectory)) return null;
    return isDirectory ? "directory" : "file";
  }

  /**
   * Whether the entry `rel` itself matches, its ancestors taken as not ignored (walkers prune
   * ignored directories, so they only ask this of entries under directories that are not).
   */
  ignoresEntry(rel: string, isDirectory: boolean): boolean {
    if (++this.tests % TESTS_PER_RULE_RELOAD === 0) this.cache.clear();
    let ignored = false;
    let dir = "";
    let rest = rel;
    for (;;) {
      const rules = this.rulesFor(dir);
      if (rules !== null) {
        const verdict = rules.test(isDirectory ? `${rest}/` : rest);
        if (verdict.ignored) ignored = true;
        else if (verdict.unignored) ignored = false;
      }
      const slash = rest.indexOf("/");
      if (slash === -1) return ignored;
      dir = joinRel(dir, rest.slice(0, slash));
      rest = rest.slice(slash + 1);
    }
  }

  /** The rules declared in directory `dir` (workspace-relative), or null when it declares none. */
  private rulesFor(dir: string): Ignore | null {
    const cached = this.cache.get(dir);
    if (cached !== undefined) {
      this.cache.delete(dir);
      this.cache.set(dir, cached);
      return cached;
    }
    let rules: Ignore | null = dir === "" ? ignore({ allowRelativePaths: true }).add(BUILT_IN_RULES) : null;
    for (const name of RULE_FILES) {
      const bytes = readSmallFileSync(this.root, absoluteOf(this.root, dir), name, MAX_RULE_FILE_BYTES);
      if (bytes === null) continue;
      let text = bytes.toString("utf8");
      if (bytes.length === MAX_RULE_FILE_BYTES) text = text.slice(0, text.lastIndexOf("\n") + 1);
      rules ??= ignore({ allowRelativePaths: true });
      rules.add(text);
    }
    if (this.cache.size >= MAX_CACHED_RULE_DIRS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(dir, rules);
    return rules;
  }
}
