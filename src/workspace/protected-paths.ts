/**
 * Protected paths: where a write, edit, delete or rename by the built-in agent always needs the
 * user's vote (every approval mode but `yolo`; `plan` refuses), whatever an earlier "always allow"
 * said. Pure: matches workspace-relative paths, and shell words (glob-aware), against the rule;
 * following symlinks is `protected-target.ts`'s job.
 *
 * The rule, at any depth of the path:
 * - a segment named `.git`, `.svc`, `.qwen`, `.claude`, `.gemini`, `.codex`, `.opencode`, `.vscode`,
 *   `.idea` or `.husky`: the folder and everything under it (and a file of that name: a `.git` file
 *   tells git where the repository is);
 * - `.github/workflows` and everything under it;
 * - a segment whose name starts with `.env` (`.env`, `.env.local`, `.envrc`).
 * At any depth rather than only at the root: a nested repository's `.git/config` runs its
 * `core.fsmonitor` for whoever runs git there, and a sub-folder may be opened as a workspace itself.
 *
 * Names compare case-insensitively and without trailing dots and spaces, which is how macOS and
 * Windows file systems compare them (`.GIT/config`, `.git./config` are `.git/config` there); on a
 * case-sensitive file system this only makes such spellings ask too.
 */

/** Folders protected with everything under them, by their folded name. */
const PROTECTED_FOLDERS: ReadonlySet<string> = new Set([".git", ".svc", ".qwen", ".claude", ".gemini", ".codex", ".opencode", ".vscode", ".idea", ".husky"]);
const ENV_PREFIX = ".env";
/** Names a glob is tried against for the `.env*` rule. */
const ENV_SAMPLES = [".env", ".envrc", ".env.local", ".env.production"];
const GLOB_CHARS = /[*?[]/;
/** Most words one brace expansion may give; past it the word is taken as reaching a protected path. */
const MAX_BRACE_WORDS = 256;

/** A name as a case-insensitive file system compares it. */
const fold = (segment: string) => segment.toLowerCase().replace(/[. ]+$/, "");

const segmentsOf = (path: string) => path.split("/").filter((s) => s !== "" && s !== "." && s !== "..");

/** How one segment of the path is compared with a protected name. */
type Matches = (segment: string, name: string) => boolean;

const literal: Matches = (segment, name) => fold(segment) === name;

/**
 * The shell's pathname expansion: a glob matches a name with a leading dot only when it starts
 * with a literal dot itself; a pattern the shell cannot read stays literal.
 */
const globOrLiteral: Matches = (segment, name) => {
  if (!GLOB_CHARS.test(segment) || (name.startsWith(".") && !segment.startsWith("."))) return literal(segment, name);
  try {
    return new Bun.Glob(segment.toLowerCase()).match(name) || literal(segment, name);
  } catch {
    return literal(segment, name);
  }
};

const isEnvName = (segment: string, matches: Matches) =>
  segment.startsWith(".") && GLOB_CHARS.test(segment) ? ENV_SAMPLES.some((name) => matches(segment, name)) : fold(segment).startsWith(ENV_PREFIX);

/**
 * The words bash's brace expansion makes of `word` (`.{g,x}it` → `.git`, `.xit`), innermost groups
 * with a comma first; null past MAX_BRACE_WORDS. A group without a comma stays as written.
 */
function expandBraces(word: string): string[] | null {
  const words = [word];
  for (let i = 0; i < words.length; i++) {
    const group = /\{([^{}]*,[^{}]*)\}/.exec(words[i]!);
    if (group === null) continue;
    const [head, tail] = [words[i]!.slice(0, group.index), words[i]!.slice(group.index + group[0].length)];
    words.splice(i, 1, ...group[1]!.split(",").map((part) => head + part + tail));
    if (words.length > MAX_BRACE_WORDS) return null;
    i--;
  }
  return words;
}

/**
 * The rule `segments` fall under, or null. With `holders`, a last segment `.github` counts too: a
 * shell command that moves or deletes that folder reaches `.github/workflows`.
 */
function ruleOf(segments: readonly string[], matches: Matches, holders: boolean): string | null {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    for (const folder of PROTECTED_FOLDERS) if (matches(segment, folder)) return `${folder}/`;
    if (isEnvName(segment, matches)) return `${ENV_PREFIX}*`;
    if (matches(segment, ".github")) {
      const next = segments[i + 1];
      if (next === undefined ? holders : matches(next, "workflows")) return ".github/workflows/";
    }
  }
  return null;
}

/**
 * The protected rule (`.git/`, `.github/workflows/`, `.env*`…) that the normalized
 * workspace-relative path `rel` falls under, or null. `folders` are more protected folders,
 * workspace-relative (svc's data dir when it lies inside the workspace: its settings and trust
 * store decide what runs unasked); `rel` is under one when its segments start with the folder's.
 */
export function protectedRule(rel: string, folders: readonly string[] = []): string | null {
  const segments = segmentsOf(rel);
  const rule = ruleOf(segments, literal, false);
  if (rule !== null) return rule;
  for (const folder of folders) {
    const held = segmentsOf(folder);
    if (held.length > 0 && held.every((segment, i) => segments[i] !== undefined && literal(segments[i]!, fold(segment)))) return `${folder}/`;
  }
  return null;
}

/**
 * The rule a path as a shell command spells it (quotes already removed) may reach, or null: its
 * segments may be globs (`.g?t`, `.*`, `{a,.git}`), tried against the protected names as the shell
 * would expand them; `.` and `..` segments are dropped (so `a/../.git` and `../.git` count), and a
 * last segment `.github` counts as the folder holding `.github/workflows`.
 */
export function protectedPatternRule(word: string): string | null {
  const words = expandBraces(word);
  if (words === null) return "a brace expansion too large to check";
  for (const one of words) {
    const rule = ruleOf(segmentsOf(one), globOrLiteral, true);
    if (rule !== null) return rule;
  }
  return null;
}
