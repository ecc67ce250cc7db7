/**
 * How svc runs `git` for its read-only views without running anything a repository chose. Pure.
 *
 * A repository's own config (`.git/config`, what it includes) and attributes can name programs that
 * a read-only `git` would start: `core.fsmonitor` (status, diff), a pager (`core.pager`, `pager.*`),
 * `diff.external` and a diff driver's `command`/`textconv`, a clean filter (`filter.<name>.clean` or
 * `.process`, run by status and diff on modified files), `gpg.program` (through
 * `log.showSignature`), and, in a partial clone, a lazy fetch's transport (`core.sshCommand`,
 * credential helpers). Settings in the command scope win over every config file, so each run starts
 * with SAFE_CONFIG and the filter names the repository defines emptied (`configEnv`: an
 * empty command means no filter to git), all passed as GIT_CONFIG_COUNT/KEY/VALUE variables, not
 * `-c`: git splits a `-c` at its first `=`, and a filter name may hold one (or be empty). A guard
 * key among them shows a run that git read them (`CONFIG_GUARD`; a git too old for the variables
 * would ignore them). Diffs pass `--no-ext-diff --no-textconv`, and submodules are not entered
 * (their config is their own). Paths are literal (`--literal-pathspecs`: a query's `:(glob)*`
 * names a file of that name). `--no-pager`, no terminal, and an empty GIT_ALLOW_PROTOCOL (no
 * transport at all, whatever `protocol.*.allow` the repository sets) close the rest.
 *
 * The environment is the daemon's, scrubbed: no variable named like a secret
 * (`config/secret-names.ts`), none the daemon keeps from children (`runtime/child-env.ts`'s list is
 * applied by the caller), no inherited `GIT_*` (a `GIT_DIR`, `GIT_CONFIG_PARAMETERS` or
 * `GIT_EXTERNAL_DIFF` would redirect or extend git), PATH reduced to its absolute entries outside
 * the workspace; then svc's own: no system config, no prompts, no optional locks, C locale.
 */
import { relative } from "node:path";
import { isSecretName } from "../../config/secret-names.ts";
import { withHostSearchPath } from "../host-executable.ts";
import { isInside } from "../paths.ts";

/** Command-scope settings every run starts with. */
export const SAFE_CONFIG: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.hooksPath", "/dev/null"],
  ["core.sshCommand", "false"],
  ["core.askPass", ""],
  ["core.quotePath", "false"],
  ["credential.helper", ""],
  ["protocol.allow", "never"],
  ["diff.external", ""],
  ["diff.noprefix", "false"],
  ["diff.mnemonicPrefix", "false"],
  ["diff.relative", "false"],
  ["log.showSignature", "false"],
  ["color.ui", "false"],
  ["gc.auto", "0"],
];

/**
 * The pathspec (after `--`, for a run at the repository's top `top`) that keeps a view to the
 * workspace `root`: none when the workspace is the repository, its path from the top when the
 * workspace is a folder inside a larger repository (literal, as every pathspec is here).
 */
export function subtreePathspec(top: string, root: string): string[] {
  return isInside(top, root) && top !== root ? [relative(top, root)] : [];
}

/** Options every diff-producing command gets. */
export const SAFE_DIFF_OPTIONS = ["--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all"] as const;

/** A key every run sets; `git config` listing it shows the run read the command-scope variables. */
export const CONFIG_GUARD = "svc.viewsguard";

/** The arguments of the run listing the filter names (`filterNames`) and the guard. */
export const FILTER_QUERY = ["config", "--null", "--name-only", "--get-regexp", "^(filter\\.|svc\\.viewsguard$)"] as const;

/**
 * The filter driver names in FILTER_QUERY's output (a name may be empty, or hold `=` or `.`), or
 * null when the guard is missing (the run ignored the command-scope variables).
 */
export function filterNames(configOutput: string): string[] | null {
  const names = new Set<string>();
  let guarded = false;
  for (const key of configOutput.split("\0")) {
    if (key === CONFIG_GUARD) guarded = true;
    const match = /^filter\.(.*)\.[^.]+$/s.exec(key);
    if (match) names.add(match[1]!);
  }
  return guarded ? [...names] : null;
}

/** The global arguments of a run. */
export const SAFE_GLOBAL_ARGS = ["--no-pager", "--no-optional-locks", "--literal-pathspecs"] as const;

/** The command-scope variables of a run: SAFE_CONFIG, the guard, and each named filter emptied. */
export function configEnv(filters: readonly string[]): Record<string, string> {
  const pairs: (readonly [string, string])[] = [...SAFE_CONFIG, [CONFIG_GUARD, "1"]];
  for (const name of filters) for (const key of ["clean", "smudge", "process"]) pairs.push([`filter.${name}.${key}`, ""]);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** The variables svc sets for every run, over the scrubbed environment. */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_NO_LAZY_FETCH: "1",
  GIT_ALLOW_PROTOCOL: "",
  GIT_PAGER: "cat",
  PAGER: "cat",
  LC_ALL: "C",
  LANG: "C",
};

/** Inherited variables that would hand git a program or a prompt of someone else's choosing. */
const DROPPED = new Set(["SSH_ASKPASS", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE"]);

/** The environment of a run, from `base` (already without the daemon's private variables) and the canonical workspace `root`. */
export function gitEnv(base: Readonly<Record<string, string>>, root: string): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (name.toUpperCase().startsWith("GIT_") || isSecretName(name) || DROPPED.has(name)) continue;
    kept[name] = value;
  }
  return { ...withHostSearchPath(kept, root), ...GIT_ENV };
}
