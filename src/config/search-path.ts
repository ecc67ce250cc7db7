/**
 * The executable search path svc and the built-in agent use: PATH's absolute entries only. An
 * empty or relative entry (`::`, `node_modules/.bin`) is searched from the current directory,
 * which for the agent's tools and commands is the workspace, so a cloned repository's own `rg` or
 * `git` would run in place of the user's. Pure.
 */

/** PATH's absolute entries, in order (empty and relative ones dropped). */
export function absoluteSearchPath(path: string): string {
  return path
    .split(":")
    .filter((entry) => entry.startsWith("/"))
    .join(":");
}

/**
 * `env` with PATH reduced to its absolute entries; without PATH when none is left (an empty PATH
 * would mean the current directory to the shell, which then searches its own default of absolute
 * system folders).
 */
export function withAbsoluteSearchPath(env: Readonly<Record<string, string>>): Record<string, string> {
  if (env.PATH === undefined) return { ...env };
  const { PATH, ...rest } = env;
  const kept = absoluteSearchPath(PATH);
  return kept === "" ? rest : { ...rest, PATH: kept };
}
