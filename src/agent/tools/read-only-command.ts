/**
 * The class of shell commands `auto` mode runs without asking: one allowlisted inspection command
 * with plain arguments. Anything the shell could turn into a second command or a write is outside
 * the class: chaining (`;`, `&`, `|`), redirection, substitution (`$`, backticks), subshells and
 * braces, newlines, escapes, and the flags of allowlisted commands that write or execute
 * (`find -exec/-delete`, `sort -o`, `git` with `-c`/`--output`). Deliberately narrow: a command that
 * does not fit simply asks.
 */
const SHELL_SYNTAX = /[;&|<>`$(){}\\\n\r*?[\]~!#=]/;

const COMMANDS = new Set(["ls", "cat", "head", "tail", "wc", "pwd", "echo", "stat", "file", "du", "df", "tree", "which", "grep", "rg", "find", "sort", "uniq", "date", "whoami", "uname", "git"]);
const GIT_READ_SUBCOMMANDS = new Set(["status", "diff", "log", "show", "branch", "rev-parse", "ls-files", "blame"]);
const WRITING_FLAGS = /^(-exec|-execdir|-ok|-okdir|-delete|-fprint.*|-fls|-o|--output.*|-c|--exec.*|--pre.*|--ext-diff)$/;

export function isReadOnlyCommand(command: string): boolean {
  const trimmed = command.trim();
  if (trimmed === "" || SHELL_SYNTAX.test(trimmed)) return false;
  const words = trimmed.split(/\s+/);
  if (words.some((w) => /["']/.test(w) || WRITING_FLAGS.test(w))) return false;
  const [name, sub] = words;
  if (!COMMANDS.has(name!)) return false;
  if (name === "git") return sub !== undefined && GIT_READ_SUBCOMMANDS.has(sub);
  return true;
}
