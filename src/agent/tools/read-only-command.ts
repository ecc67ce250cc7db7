/**
 * The class of shell commands `auto` mode runs without asking: one allowlisted inspection command
 * with plain arguments. Anything the shell could turn into a second command or a write is outside
 * the class: chaining (`;`, `&`, `|`), redirection, substitution (`$`, backticks), subshells and
 * braces, newlines, escapes, the flags of allowlisted commands that write or execute
 * (`find -exec/-delete`, `sort -o`, `git` with `-c`/`--output`), a second operand to `uniq` (its
 * output file), `git branch` with anything but listing flags (it creates, renames, deletes), and any
 * operand that leaves the workspace lexically (an absolute path, a `..` segment), as the file tools
 * are confined to it. (A symlink inside the workspace that points out is not seen here.)
 * Deliberately narrow: a command that does not fit simply asks.
 */
const SHELL_SYNTAX = /[;&|<>`$(){}\\\n\r*?[\]~!#=]/;

const COMMANDS = new Set(["ls", "cat", "head", "tail", "wc", "pwd", "echo", "stat", "file", "du", "df", "tree", "which", "grep", "rg", "find", "sort", "uniq", "whoami", "uname", "git"]);
const GIT_READ_SUBCOMMANDS = new Set(["status", "diff", "log", "show", "branch", "rev-parse", "ls-files", "blame"]);
const GIT_BRANCH_LISTING = new Set(["-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "--show-current"]);
const WRITING_FLAGS = /^(-exec|-execdir|-ok|-okdir|-delete|-fprint.*|-fls|-o|--output.*|-c|--exec.*|--pre.*|--ext-diff)$/;

export function isReadOnlyCommand(command: string): boolean {
  const trimmed = command.trim();
  if (trimmed === "" || SHELL_SYNTAX.test(trimmed)) return false;
  const words = trimmed.split(/\s+/);
  if (words.some((w) => /["']/.test(w) || WRITING_FLAGS.test(w) || leavesWorkspace(w))) return false;
  const [name, sub, ...rest] = words;
  if (!COMMANDS.has(name!)) return false;
  if (name === "uniq") return words.slice(1).filter((w) => !w.startsWith("-")).length <= 1;
  if (name === "git") return sub !== undefined && GIT_READ_SUBCOMMANDS.has(sub) && (sub !== "branch" || rest.every((w) => GIT_BRANCH_LISTING.has(w)));
  return true;
}

/** An operand naming a path outside the workspace on its face: absolute, or through a `..` segment (also after `--opt=`). */
function leavesWorkspace(word: string): boolean {
  const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
  return value.startsWith("/") || value.split("/").includes("..");
}
