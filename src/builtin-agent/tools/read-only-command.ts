/**
 * The class of shell commands `auto` mode runs without asking, parse-exact: one command from the
 * table below whose EVERY word is accounted for by that command's spec. Anything else asks.
 *
 * - The whole line is plain words: no shell syntax at all (chaining, redirection, substitution,
 *   globs, quotes, escapes, `=`, `~`, newlines), so the shell runs exactly one program with exactly
 *   these words.
 * - A flag is accepted only when the spec lists it exactly. Listed flags are switches that neither
 *   write nor run anything; single-letter switches may be bundled (`-la`) only when every letter is
 *   listed. A flag that takes a value takes it as the NEXT word, checked by the spec (a number);
 *   values stuck to a flag (`-n5`, `-oFILE`, `--opt=x`) never match. Unlisted flags - every one
 *   that takes a program, an output file or a file list (`sort --compress-program`, `-o`,
 *   `file -f`, `grep -f`, `rg --pre`, `tree -o`, `find -exec`) - make the command ask.
 * - Operands are either words (a grep pattern, `echo` text, a program name for `which`) or paths.
 *   A path must be workspace-relative on its face (not absolute, no `..` segment) and, when it
 *   exists, must resolve (symlinks followed) inside the workspace. Commands that recurse are listed
 *   only with their not-following-symlinks behaviour (no `ls -L`, `grep -R`, `find -L`, `rg -L`).
 *   An existing path must also be a regular file or a directory: reading a FIFO or a device blocks
 *   or reads what is not the workspace's.
 * - The program itself must be the one a search of PATH's absolute entries finds, outside the
 *   workspace: with an empty or relative PATH entry (`::`, `node_modules/.bin`) the shell could run
 *   a workspace file of the same name, so the command asks.
 * - Not in the class: `sort`, `file`, `uniq` with an output operand (their options write or
 *   execute in too many ways to check); `git` (it finds a repository in the parent folders, outside
 *   the workspace, runs programs its config names - `core.fsmonitor`, diff drivers - and rewrites
 *   `.git/index` on a status); `df` and `which` (they describe the host outside the workspace).
 * (A hard link inside the workspace to an outside file is not seen here.)
 */
import { lstat, realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { absoluteSearchPath } from "../../config/search-path.ts";
import { findHostExecutable } from "../../workspace/host-executable.ts";
import { isInside } from "../../workspace/paths.ts";

/** Anything but letters, digits and `_ - . / , : + @ %` makes the line ask. */
const PLAIN_WORD = /^[A-Za-z0-9_\-./,:+@%]+$/;
const COUNT = /^\d{1,7}$/;

type OperandKind = "path" | "word";

interface CommandSpec {
  /** Switches, exact (`-l`, `--stat`). */
  readonly flags?: readonly string[];
  /** Flags that take the next word as their value, with the value's shape. */
  readonly valued?: Readonly<Record<string, RegExp>>;
  /** Kind of the first operand, when it differs from the rest (grep's pattern). */
  readonly first?: OperandKind;
  /** Kind of the other operands; null: no operands. */
  readonly rest: OperandKind | null;
  /** Most operands accepted. */
  readonly max?: number;
}

const SPECS: Readonly<Record<string, CommandSpec>> = {
  ls: { flags: ["-l", "-a", "-A", "-h", "-R", "-1", "-t", "-r", "-S", "-d", "-F", "-i", "-s"], rest: "path" },
  cat: { flags: ["-n", "-b", "-A", "-E", "-s", "-T", "-v"], rest: "path" },
  head: { flags: ["-q", "-v"], valued: { "-n": COUNT, "-c": COUNT }, rest: "path" },
  tail: { flags: ["-q", "-v"], valued: { "-n": COUNT, "-c": COUNT }, rest: "path" },
  wc: { flags: ["-l", "-w", "-c", "-m", "-L"], rest: "path" },
  pwd: { rest: null },
  echo: { flags: ["-n"], rest: "word" },
  stat: { rest: "path" },
  du: { flags: ["-s", "-h", "-a", "-c", "-k", "-m", "-b"], valued: { "-d": COUNT }, rest: "path" },
  tree: { flags: ["-a", "-d", "-f", "-i", "--noreport"], valued: { "-L": COUNT }, rest: "path" },
  grep: { flags: ["-r", "-n", "-i", "-l", "-L", "-c", "-v", "-w", "-x", "-h", "-H", "-E", "-F", "-o", "-s", "-q"], first: "word", rest: "path" },
  rg: { flags: ["-n", "-i", "-l", "-c", "-v", "-w", "-F", "-s", "-S", "--hidden", "--files-with-matches", "--count"], first: "word", rest: "path" },
  uniq: { flags: ["-c", "-d", "-u", "-i"], rest: "path", max: 1 },
  whoami: { rest: null },
  uname: { flags: ["-a", "-r", "-s", "-m", "-n", "-o", "-v"], rest: null },
};

/** `find`'s accepted tests (no actions, no `-L`/`-H`, no `-newer FILE`), each with its value's shape (null: none). */
const FIND_TESTS: Readonly<Record<string, RegExp | null>> = { "-name": PLAIN_WORD, "-iname": PLAIN_WORD, "-type": /^[fdl]$/, "-maxdepth": COUNT, "-mindepth": COUNT, "-empty": null, "-print": null };

/**
 * The path operands of `command` when it is in the class on its face (before the file system is
 * looked at), else null. Pure.
 */
export function readOnlyPathOperands(command: string): string[] | null {
  const words = command.trim().split(/[ \t]+/);
  if (words[0] === "" || !words.every((w) => PLAIN_WORD.test(w))) return null;
  const [name, ...args] = words as [string, ...string[]];
  if (name === "find") return findOperands(args);
  const spec = Object.hasOwn(SPECS, name) ? SPECS[name] : undefined;
  return spec ? specOperands(spec, args) : null;
}

function specOperands(spec: CommandSpec, args: string[]): string[] | null {
  const flags = new Set(spec.flags ?? []);
  const operands: OperandKind[] = [];
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.startsWith("-")) {
      const valueShape = spec.valued?.[word];
      if (valueShape) {
        const value = args[++i];
        if (value === undefined || !valueShape.test(value)) return null;
      } else if (!flags.has(word) && !isBundle(word, flags)) return null;
      continue;
    }
    const kind = operands.length === 0 && spec.first ? spec.first : spec.rest;
    if (kind === null) return null;
    if (kind === "path") {
      if (!plainRelativePath(word)) return null;
      paths.push(word);
    }
    operands.push(kind);
  }
  if (spec.max !== undefined && operands.length > spec.max) return null;
  return paths;
}

/** `-la` when `-l` and `-a` are both listed switches. */
function isBundle(word: string, flags: ReadonlySet<string>): boolean {
  return /^-[A-Za-z0-9]{2,}$/.test(word) && [...word.slice(1)].every((letter) => flags.has(`-${letter}`));
}

/** `find [paths] [tests]`: starting points first, then only the tests of FIND_TESTS. */
function findOperands(args: string[]): string[] | null {
  const paths: string[] = [];
  let i = 0;
  for (; i < args.length && !args[i]!.startsWith("-"); i++) {
    if (!plainRelativePath(args[i]!)) return null;
    paths.push(args[i]!);
  }
  while (i < args.length) {
    const test = args[i++]!;
    if (!Object.hasOwn(FIND_TESTS, test)) return null;
    const valueShape = FIND_TESTS[test];
    if (valueShape && !valueShape.test(args[i++] ?? "")) return null;
  }
  return paths;
}

/** Relative on its face: not absolute, no `..` segment. */
function plainRelativePath(word: string): boolean {
  return !word.startsWith("-") && !isAbsolute(word) && !word.split("/").includes("..");
}

/**
 * True when `command` is in the auto-approved class for the workspace at `root` (its canonical
 * absolute path), run with `searchPath` (the shell's PATH): in the class on its face, its program
 * found outside the workspace, and every existing path operand a file or directory inside.
 */
export async function isReadOnlyCommand(command: string, root: string, searchPath: string): Promise<boolean> {
  const paths = readOnlyPathOperands(command);
  if (paths === null) return false;
  if (!programOutside(command.trim().split(/[ \t]+/)[0]!, root, searchPath)) return false;
  for (const path of paths) if (!(await resolvesInside(root, path))) return false;
  return true;
}

/**
 * Whether the shell's search of `searchPath` for `name` can only land outside the workspace: every
 * entry absolute (an empty or relative one means the workspace, the shell's cwd), and the program
 * found not inside `root` once resolved (`host-executable.ts`).
 */
function programOutside(name: string, root: string, searchPath: string): boolean {
  if (absoluteSearchPath(searchPath) !== searchPath) return false;
  return findHostExecutable(name, searchPath, root).kind === "found";
}

async function resolvesInside(root: string, path: string): Promise<boolean> {
  const abs = resolve(root, path);
  const exists = await lstat(abs).then(
    () => true,
    () => false,
  );
  // A path that does not exist reads nothing; one that does must land inside once resolved, on a
  // regular file or a directory.
  if (!exists) return isInside(root, abs);
  const real = await realpath(abs).catch(() => null);
  if (real === null || !isInside(root, real)) return false;
  const kind = await stat(real).catch(() => null);
  return kind !== null && (kind.isFile() || kind.isDirectory());
}
