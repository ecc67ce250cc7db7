/**
 * Finds a program the way the shell would on a PATH of absolute entries only
 * (`config/search-path.ts`), and refuses one that lives in the workspace: the agent's tools (grep's
 * `rg`, the auto-approved read-only commands) and the daemon's preflight probes (`rg`, `git`, `npm`)
 * run the user's programs, never the repository's. The first entry holding an executable regular
 * file of that name decides, as for the shell; it is refused when its real path (symlinks followed,
 * so a link in `~/.local/bin` pointing into the workspace counts) lies inside the workspace.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { absoluteSearchPath } from "../config/search-path.ts";
import { isInside } from "./paths.ts";

export type ExecutableLookup =
  | { readonly kind: "found"; readonly path: string }
  /** Not in any absolute entry; `skippedRelative`: PATH had entries that were not searched. */
  | { readonly kind: "missing"; readonly skippedRelative: boolean }
  /** Found first at `path`, whose real location `real` is inside the workspace: not to be run. */
  | { readonly kind: "inside_workspace"; readonly path: string; readonly real: string };

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `name` (a bare program name) searched in the absolute entries of `searchPath`, judged against
 * the workspace at `root` (canonical).
 */
export function findHostExecutable(name: string, searchPath: string, root: string): ExecutableLookup {
  const absolute = absoluteSearchPath(searchPath);
  const skippedRelative = absolute !== searchPath;
  if (name.includes("/") || absolute === "") return { kind: "missing", skippedRelative };
  for (const entry of absolute.split(":")) {
    const path = entry.endsWith("/") ? entry + name : `${entry}/${name}`;
    if (!isExecutableFile(path)) continue;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    return isInside(root, real) ? { kind: "inside_workspace", path, real } : { kind: "found", path };
  }
  return { kind: "missing", skippedRelative };
}

/**
 * The absolute entries of `searchPath` that do not lead into the workspace at `root`: the PATH a
 * program svc runs gets, so that what it looks up itself (an `npm` script's `env node`) is the
 * user's too.
 */
export function hostSearchPath(searchPath: string, root: string): string {
  const absolute = absoluteSearchPath(searchPath);
  if (absolute === "") return "";
  return absolute
    .split(":")
    .filter((entry) => {
      let real: string;
      try {
        real = realpathSync(entry);
      } catch {
        return true; // a folder that does not exist holds nothing
      }
      return !isInside(root, real);
    })
    .join(":");
}

/** `env` with PATH reduced to `hostSearchPath`; without PATH when nothing is left (`withAbsoluteSearchPath`). */
export function withHostSearchPath(env: Readonly<Record<string, string>>, root: string): Record<string, string> {
  if (env.PATH === undefined) return { ...env };
  const { PATH, ...rest } = env;
  const kept = hostSearchPath(PATH, root);
  return kept === "" ? rest : { ...rest, PATH: kept };
}
