/**
 * Blanks secrets in the process's startup strings: the argv and environment blocks the kernel
 * copied onto the stack at exec, which it serves as /proc/<pid>/cmdline and /proc/<pid>/environ.
 * Deleting a variable from `process.env` does not touch that block (the runtime keeps its own
 * copy), so the bytes are overwritten in place through /proc/self/mem (Linux only).
 *
 * Only whole strings are blanked: an argument equal to a secret, or the value of a `NAME=value` /
 * `--flag=value` string equal to a secret. The runtime has read its environment by then, but libc's
 * `getenv` still reads this block, so a partial match must never corrupt another variable. Blanked
 * bytes become `*`: a later lookup of the variable gets a wrong value, never an empty one (which
 * could read as "no token").
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

const STAR = 0x2a;

/** The [start, end) addresses of the argv and environment blocks (fields 48–51 of /proc/self/stat). */
function blockBounds(): { args: [number, number]; env: [number, number] } {
  const stat = readFileSync("/proc/self/stat", "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const field = (n: number) => Number(fields[n - 3]);
  return { args: [field(48), field(49)], env: [field(50), field(51)] };
}

/**
 * Overwrites, in `block` (NUL-separated strings), every string equal to a secret and every
 * `…=value` whose value equals a secret. Returns how many strings it blanked. Pure.
 */
export function blankSecrets(block: Uint8Array, secrets: readonly Uint8Array[]): number {
  let blanked = 0;
  let start = 0;
  while (start < block.length) {
    let end = block.indexOf(0, start);
    if (end === -1) end = block.length;
    const eq = block.indexOf(0x3d, start);
    const valueStart = eq !== -1 && eq < end ? eq + 1 : -1;
    for (const secret of secrets) {
      const from = equalsAt(block, start, end, secret) ? start : valueStart !== -1 && equalsAt(block, valueStart, end, secret) ? valueStart : -1;
      if (from === -1) continue;
      block.fill(STAR, from, end);
      blanked++;
      break;
    }
    start = end + 1;
  }
  return blanked;
}

function equalsAt(block: Uint8Array, from: number, end: number, secret: Uint8Array): boolean {
  if (end - from !== secret.length) return false;
  for (let i = 0; i < secret.length; i++) if (block[from + i] !== secret[i]) return false;
  return true;
}

/** Blanks `secrets` in this process's argv and environment blocks; the number of strings blanked, or null where that is impossible. */
export function blankStartupSecrets(secrets: readonly string[]): number | null {
  if (process.platform !== "linux") return null;
  const encoded = secrets.filter((s) => s !== "").map((s) => new TextEncoder().encode(s));
  if (encoded.length === 0) return 0;
  let fd: number;
  try {
    fd = openSync("/proc/self/mem", "r+");
  } catch {
    return null;
  }
  try {
    let blanked = 0;
    const bounds = blockBounds();
    for (const [start, end] of [bounds.args, bounds.env]) {
      if (!(end > start)) continue;
      const block = new Uint8Array(end - start);
      if (readSync(fd, block, 0, block.length, start) !== block.length) continue;
      const n = blankSecrets(block, encoded);
      if (n > 0 && writeSync(fd, block, 0, block.length, start) === block.length) blanked += n;
    }
    return blanked;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
