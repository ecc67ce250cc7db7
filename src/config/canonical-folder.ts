/** Canonical spellings of folders named by the user, so a symlinked or relative spelling matches the canonical workspace. */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

/** `folder`'s real path; a folder that does not exist keeps its absolute spelling (it cannot contain an existing workspace). */
export function canonicalFolder(folder: string, cwd = process.cwd()): string {
  const absolute = resolve(cwd, folder);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

export const canonicalFolders = (folders: readonly string[]): string[] => folders.map((folder) => canonicalFolder(folder));
