/**
 * Which workspace paths are ignored: `.gitignore` and `.svcignore` in the workspace root and in any
 * directory below it (each file's patterns apply relative to its directory, deeper files win, as in
 * git), plus `.git` itself. Matching is the `ignore` package's; this file only layers directories.
 *
 * One instance serves one request, so edits to rule files take effect on the next request. Rule
 * files are read lazily per directory and cached, the cache bounded (least recently used evicted).
 * Walkers keep the `RuleChain` of the directory they are in, so testing an entry costs one call
 * into `ignore` per directory on its way that has rules, and nothing else.
 */
import ignore, { type Ignore } from "ignore";
import { readSmallFileSync } from "./contained-fs.ts";
import { absoluteOf } from "./paths.ts";

export type IgnoreMatch = "file" | "directory" | null;

const RULE_FILES = [".gitignore", ".svcignore"];
/** Bytes read of one rule file; a longer file's tail is not read (its last, cut line is dropped). */
const MAX_RULE_FILE_BYTES = 256 * 1024;
/** Directories whose rules are kept at once; more evict the least recently used (re-read on need). */
const MAX_CACHED_RULE_DIRS = 256;
/**
 * The `ignore` package remembers its verdict for every path it is asked about. A rule set is
 * rebuilt from its text after this many tests, which bounds that memory during long walks.
 */
const TESTS_PER_REBUILD = 1024;
/** Always ignored, as git never shows its own directory. */
const BUILT_IN_RULES = [".git"];

/** The compiled rule files of one directory. */
class DirectoryRules {
  private matcher: Ignore;
  private tests = 0;

  constructor(
    /** Workspace-relative directory the patterns are relative to. */
    readonly dir: string,
    /** Rule file texts (one pattern per line). */
    private readonly texts: readonly string[],
  ) {
    this.matcher = DirectoryRules.compile(texts);
  }

  private static compile(texts: readonly string[]): Ignore {
    const matcher = ignore({ allowRelativePaths: true });
    for (const text of texts) matcher.add(text);
    return matcher;
  }

  /** The verdict for `rel` (workspace-relative, below `dir`; a trailing `/` marks a directory). */
  test(rel: string): { ignored: boolean; unignored: boolean } {
    if (++this.tests === TESTS_PER_REBUILD) {
      this.tests = 0;
      this.matcher = DirectoryRules.compile(this.texts);
    }
    return this.matcher.test(this.dir === "" ? rel : rel.slice(this.dir.length + 1));
  }
}

/** The rule sets that apply inside one directory: its ancestors' and its own, root first. */
export type RuleChain = readonly DirectoryRules[];

export class IgnoreRules {
  private readonly cache = new Map<string, DirectoryRules | null>();

  /** `root` is the workspace's canonical path. */
  constructor(private readonly root: string) {}

  /**
   * Why `rel` is ignored: `directory` when a directory on its way (or `rel` itself, being one) is
   * ignored, `file` when the file itself is, null when it is not ignored.
   */
  match(rel: string, isDirectory: boolean): IgnoreMatch {
    if (rel === "") return null;
    let chain = this.chainFor("");
    for (let slash = rel.indexOf("/"); slash !== -1; slash = rel.indexOf("/", slash + 1)) {
      const dir = rel.slice(0, slash);
      if (this.ignores(chain, dir, true)) return "directory";
      chain = this.childChain(chain, dir);
    }
    if (!this.ignores(chain, rel, isDirectory)) return null;
    return isDirectory ? "directory" : "file";
  }

  /** The chain of directory `dir` (workspace-relative), built from the root. */
  chainFor(dir: string): RuleChain {
    const root = this.own("");
    let chain: RuleChain = root === null ? [] : [root];
    if (dir === "") return chain;
    for (let slash = dir.indexOf("/"); ; slash = dir.indexOf("/", slash + 1)) {
      chain = this.childChain(chain, slash === -1 ? dir : dir.slice(0, slash));
      if (slash === -1) return chain;
    }
  }

  /** The chain of subdirectory `dir` whose parent's chain is `parent`. */
  childChain(parent: RuleChain, dir: string): RuleChain {
    const own = this.own(dir);
    return own === null ? parent : [...parent, own];
  }

  /**
   * Whether entry `rel` itself matches the rules of `chain` (its directory's chain); its ancestors
   * are taken as not ignored (walkers prune ignored directories, so that holds for them).
   */
  ignores(chain: RuleChain, rel: string, isDirectory: boolean): boolean {
    const path = isDirectory ? `${rel}/` : rel;
    let ignored = false;
    for (const rules of chain) {
      const verdict = rules.test(path);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }

  /** The rules declared in directory `dir` itself, or null when it declares none. */
  private own(dir: string): DirectoryRules | null {
    const cached = this.cache.get(dir);
    if (cached !== undefined) {
      this.cache.delete(dir);
      this.cache.set(dir, cached);
      return cached;
    }
    const texts = dir === "" ? [...BUILT_IN_RULES] : [];
    for (const name of RULE_FILES) {
      const bytes = readSmallFileSync(this.root, absoluteOf(this.root, dir), name, MAX_RULE_FILE_BYTES);
      if (bytes === null) continue;
      const text = bytes.toString("utf8");
      texts.push(bytes.length === MAX_RULE_FILE_BYTES ? text.slice(0, text.lastIndexOf("\n") + 1) : text);
    }
    const rules = texts.length === 0 ? null : new DirectoryRules(dir, texts);
    if (this.cache.size >= MAX_CACHED_RULE_DIRS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(dir, rules);
    return rules;
  }
}
