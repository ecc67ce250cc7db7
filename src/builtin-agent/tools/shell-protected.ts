/**
 * Whether a shell command names a protected path (`workspace/protected-paths.ts`), for the approval
 * of run_shell_command: such a command asks in every mode but yolo, says so in the ask, and no
 * "always" answer covers it. Pure. Not asked of the read-only class (`read-only-command.ts`),
 * whose commands write nothing.
 *
 * What counts, once quotes and backslashes are removed (`.g'i't` and `.g\it` are `.git`):
 * - a word (split at blanks and at `; & | < > ( ) $ \` = :`) that is, lies under, or as a glob or
 *   brace expansion may be, a protected path at any depth: a redirection target
 *   (`> .git/config`), an operand of `tee`, `cp`, `mv`, `rm`, `sed -i`, `dd of=`, a `cd` into one;
 *   also an option's value stuck to it (`-o.svc/settings.json`);
 * - a word naming a folder that holds protected paths: the workspace (`.`, `./`, its absolute
 *   path), a folder above it (`..`, `/`), and `.github`;
 * - `git` as a word: git writes `.git/` by design (`git config core.fsmonitor …`);
 * - a word under one of the more protected folders given (svc's data dir inside the workspace).
 * This checks what the command says, not what it does: a command can reach a protected path
 * without naming it (through a variable, a script, a build tool). Such a command still asks in
 * every mode but yolo, as every command outside the read-only class does; only the "always" answer
 * for its exact line is not withheld from it.
 */
import { basename, isAbsolute, normalize, relative } from "node:path";
import { isInside } from "../../workspace/paths.ts";
import { protectedPatternRule, protectedRule } from "../../workspace/protected-paths.ts";

const SEPARATORS = /[\s;&|<>()$`=:]+/;
/** A leading option and its letters, before a value stuck to it (`-o` of `-o.svc/x`). */
const STUCK_OPTION = /^-+[A-Za-z0-9]+/;

/** The folder-holding spellings: only dots and slashes (`.`, `./`, `..`, `../..`, `/`). */
const DOTS_AND_SLASHES = /^[./]+$/;

/**
 * The protected path `command`, run in the workspace at `root` (canonical), names, as the user is
 * shown it; null when it names none. `folders`: more protected folders, workspace-relative.
 */
export function shellProtectedPath(command: string, root: string, folders: readonly string[] = []): string | null {
  const plain = command.replace(/\\(.)/gs, "$1").replace(/["']/g, "");
  for (const word of plain.split(SEPARATORS)) {
    if (word === "") continue;
    if (basename(word).toLowerCase() === "git") return "git (it writes .git/)";
    if (DOTS_AND_SLASHES.test(word) || (isAbsolute(word) && isInside(normalize(word).replace(/(.)\/$/, "$1"), root)))
      return `${word} (a folder holding protected paths such as .git/)`;
    const stuck = word.startsWith("-") ? word.replace(STUCK_OPTION, "") : word;
    if (protectedPatternRule(word) !== null || (stuck !== word && protectedPatternRule(stuck) !== null)) return word;
    if (folders.length > 0 && underFolders(stuck, root, folders)) return word;
  }
  return null;
}

/** Whether a word, as a path from the workspace, lies under one of `folders` (workspace-relative). */
function underFolders(word: string, root: string, folders: readonly string[]): boolean {
  const path = isAbsolute(word) ? normalize(word) : normalize(`${root}/${word}`);
  return isInside(root, path) && protectedRule(relative(root, path), folders) !== null;
}
