/**
 * `--token-file <path>`: the bearer token read from a file, so it is on no command line and in no
 * environment (what `svc service install` points its unit at). The file is trusted only when
 * nobody else could have written or read it:
 * - a regular file (opened with O_NOFOLLOW | O_NONBLOCK and checked on the open descriptor, so a
 *   symlink, FIFO or device is refused and never blocks the boot);
 * - owned by this user, with no group or other access (0600, 0400 or stricter);
 * - the token on one line: one trailing newline (`\n` or `\r\n`, as editors and `echo` leave it) is
 *   dropped, anything else is the token's and checked as `--token` is (`token.ts`).
 * Every refusal is a BootError naming the file and the fault, never its content.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { BootError } from "./boot-error.ts";
import { MAX_TOKEN_LENGTH, parseToken } from "./token.ts";

/** The most bytes read: the longest token, its `\r\n`, and one more to tell a longer file. */
const READ_LIMIT = MAX_TOKEN_LENGTH + 3;

/** The token in `path` (absolute); `uid` is this process's user (null where there are no uids: no owner or mode check). */
export function readTokenFile(path: string, uid: number | null = process.getuid?.() ?? null): string {
  const fail = (why: string): never => {
    throw new BootError(`--token-file ${path}: ${why}`);
  };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return fail("does not exist");
    if (code === "ELOOP") return fail("is a symbolic link; give the file itself");
    if (code === "EACCES") return fail("cannot be read by this user");
    return fail(`cannot be opened (${code ?? (err as Error).message})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) fail("is not a regular file");
    if (uid !== null && stat.uid !== uid) fail(`is owned by uid ${stat.uid}, not by this user (uid ${uid})`);
    const mode = stat.mode & 0o777;
    if (uid !== null && (mode & 0o077) !== 0)
      fail(`has mode 0${mode.toString(8).padStart(3, "0")}, which lets other users read or change it; run chmod 600 ${path}`);
    const buffer = Buffer.alloc(READ_LIMIT);
    let length = 0;
    while (length < READ_LIMIT) {
      const n = readSync(fd, buffer, length, READ_LIMIT - length, null);
      if (n === 0) break;
      length += n;
    }
    const text = buffer.subarray(0, length).toString("latin1");
    const token = text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
    if (token === "") fail("is empty; write the token into it (one line)");
    return parseToken(token, `--token-file ${path}`)!;
  } finally {
    closeSync(fd);
  }
}
