/**
 * How svc runs `git` for its read-only views without running anything a repository chose. Pure.
 *
 * A repository's own config (`.git/config`, what it includes) and attributes can name programs that
 * a read-only `git` would start: `core.fsmonitor` (status, diff), a pager (`core.pager`, `pager.*`),
 * `diff.external` and a diff driver's `command`/`textconv`, a clean filter (`filter.<name>.clean` or
 * `.process`, run by status and diff on modified files), `gpg.program` (through
 * `log.showSignature`), and, in a partial clone, a lazy fetch's transport (`core.sshCommand`,
 * credential helpers). Command-line `-c` settings win over every config file, so each run starts
 * with SAFE_CONFIG, the filter names the repository defines are emptied (`filterOverrides`: an
 * empty command means no filter to git), diffs pass `--no-ext-diff --no-textconv`, and submodules
 * are not entered (their config is their own). Paths are literal (`--literal-pathspecs`: a query's
 * `:(glob)*` names a file of that name). `--no-pager`, no terminal, and `protocol.allow=never`
 * (no transport at all) close the rest.
 *
 * The environment is the daemon's, scrubbed: no variable named like a secret
 * (`config/secret-names.ts`), none the daemon keeps from children (`runtime/child-env.ts`'s list is
 * applied by the caller), no inherited `GIT_*` (a `GIT_DIR`, `GIT_CONFIG_PARAMETERS` or
 * `GIT_EXTERNAL_DIFF` would redirect or extend git), PATH reduced to its absolute entries outside
 * the workspace; then svc's own: no system config, no prompts, no optional locks, C locale.
 */
import { isSecretName } from "../../config/secret-names.ts";
import { withHostSearchPath } from "../host-executable.ts";

/** `-c` settings every run starts with. */
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

/** Options every diff-producing command gets. */
export const SAFE_DIFF_OPTIONS = ["--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all"] as const;

/** The filter driver names in `git config --null --name-only --get-regexp ^filter\.` output. */
export function filterNames(configOutput: string): string[] {
  const names = new Set<string>();
  for (const key of configOutput.split("\0")) {
    const match = /^filter\.(.+)\.[^.]+$/s.exec(key.trim());
    if (match) names.add(match[1]!);
  }
  return [...names];
}

/** The global arguments of a run: `--no-pager`, SAFE_CONFIG, and each named filter emptied. */
export function safeGlobalArgs(filters: readonly string[]): string[] {
  const args = ["--no-pager", "--no-optional-locks", "--literal-pathspecs"];
  for (const [key, value] of SAFE_CONFIG) args.push("-c", `${key}=${value}`);
  for (const name of filters) for (const key of ["clean", "smudge", "process"]) args.push("-c", `filter.${name}.${key}=`);
  return args;
}

/** The variables svc sets for every run, over the scrubbed environment. */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_NO_LAZY_FETCH: "1",
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
