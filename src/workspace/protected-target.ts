/**
 * Whether a write to a workspace path lands on a protected path (`protected-paths.ts`), judged the
 * way the writers resolve it (`contained-fs.ts`): by the path's own spelling, and by where it
 * really is once symlinks are followed - of the file itself (`notes -> .git/config`) or of any
 * folder on the way (`cfg -> .git`, then `cfg/config`). A path whose real location is outside the
 * workspace is left to containment, which refuses it.
 */
import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { basename, dirname, relative } from "node:path";
import { absoluteOf, isInside, nameOf, parentOf } from "./paths.ts";
import { protectedRule } from "./protected-paths.ts";

export interface ProtectedTarget {
  /** The workspace-relative path that is protected: the one given, or where it really leads. */
  readonly rel: string;
  /** The rule it falls under (`.git/`, `.env*`…). */
  readonly rule: string;
}

/** Where `rel` really is, workspace-relative: its deepest existing ancestor resolved, the rest appended; null when outside. */
async function realRel(root: string, rel: string): Promise<string | null> {
  let rest = "";
  for (let prefix = rel; ; prefix = parentOf(prefix)) {
    const real = await realpath(absoluteOf(root, prefix)).catch(() => null);
    if (real !== null) {
      const whole = rest === "" ? real : `${real}/${rest}`;
      return isInside(root, whole) ? relative(root, whole) : null;
    }
    if (prefix === "") return null;
    rest = rest === "" ? nameOf(prefix) : `${nameOf(prefix)}/${rest}`;
  }
}

/**
 * The protected path a write to normalized workspace-relative `rel` would change, or null;
 * `folders`: more protected folders (`protectedRule`).
 */
export async function protectedTarget(root: string, rel: string, folders: readonly string[] = []): Promise<ProtectedTarget | null> {
  const spelled = protectedRule(rel, folders);
  if (spelled !== null) return { rel, rule: spelled };
  const real = await realRel(root, rel);
  const rule = real === null ? null : protectedRule(real, folders);
  return rule === null ? null : { rel: real!, rule };
}

/**
 * Those of absolute `folders` that lie inside the workspace at `root` (canonical), workspace-relative,
 * judged by where they really are (the deepest existing ancestor resolved): for `protectedFolders`.
 */
export function foldersInside(root: string, folders: readonly string[]): string[] {
  return folders.flatMap((folder) => {
    let rest = "";
    for (let path = folder; ; path = dirname(path)) {
      let real: string | null = null;
      try {
        real = realpathSync(path);
      } catch {
        // not there yet: its parent decides
      }
      if (real !== null) {
        const whole = rest === "" ? real : `${real}/${rest}`;
        return whole !== root && isInside(root, whole) ? [relative(root, whole)] : [];
      }
      if (dirname(path) === path) return [];
      rest = rest === "" ? basename(path) : `${basename(path)}/${rest}`;
    }
  });
}
