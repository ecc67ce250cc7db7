/**
 * The instruction ("memory") files an agent lives by: `AGENTS.md`, then the names other agents use
 * (`QWEN.md`, `CLAUDE.md`, `GEMINI.md`), in that order within a directory. Where they are looked
 * for, in the order they are listed and put in the built-in agent's system prompt:
 *   1. the user's, in the data dir (scope `global`);
 *   2. the project's, in every directory from the repository root (the nearest directory above
 *      the workspace holding `.git`, at most MAX_WALK_UP levels up) down to the workspace; without
 *      a repository, the workspace alone (scope `workspace`). Later files are more specific.
 * An untrusted workspace's project files are neither listed nor read: a cell in `errors` says so.
 *
 * Links: a file that is a symlink is used only when its real path stays inside its scope's root
 * (the data dir, or the repository root / workspace); otherwise it is reported (`symlink_escape`)
 * and skipped. Files are opened with O_NOFOLLOW on their real path.
 *
 * Bounds: each file gives at most MAX_FILE_BYTES to the prompt and all of them MAX_TOTAL_BYTES
 * (a cut file ends with a note); at most MAX_WALK_UP directories are walked.
 */
import { constants } from "node:fs";
import { lstat, open, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isInside } from "../paths.ts";

export const MEMORY_FILENAMES = ["AGENTS.md", "QWEN.md", "CLAUDE.md", "GEMINI.md"] as const;
/** The file the write route edits, in the workspace and in the data dir. */
export const MEMORY_WRITE_FILENAME = "AGENTS.md";
export const MAX_FILE_BYTES = 64 * 1024;
export const MAX_TOTAL_BYTES = 192 * 1024;
/** Directories above the workspace searched for the repository root. */
export const MAX_WALK_UP = 32;

export type MemoryScope = "workspace" | "global";

export interface MemoryFile {
  readonly kind: "memory_file";
  /** Absolute path where it was found (not its link target). */
  readonly path: string;
  readonly scope: MemoryScope;
  readonly bytes: number;
}

export interface MemoryProblem {
  readonly kind: "memory_file";
  readonly status: "error" | "disabled";
  readonly error: string;
  readonly errorKind: string;
  readonly hint?: string;
}

export interface MemoryWhere {
  /** The canonical workspace. */
  readonly workspace: string;
  readonly dataDir: string;
  readonly trusted: boolean;
}

interface Found extends MemoryFile {
  /** Its real path (the link target for a link). */
  readonly real: string;
}

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** The directories whose project files count, outermost first: the repository root down to the workspace. */
export async function projectDirs(workspace: string): Promise<string[]> {
  const chain = [workspace];
  for (let dir = workspace, i = 0; i <= MAX_WALK_UP; i++) {
    if (await lstat(join(dir, ".git")).then(() => true, () => false)) return chain.reverse();
    const up = dirname(dir);
    if (up === dir) break;
    chain.push((dir = up));
  }
  return [workspace];
}

/** `dir/name` when it is a regular file, or a link to one inside `root`; a problem when it is not usable; null when absent. */
async function probe(dir: string, name: string, root: string, scope: MemoryScope): Promise<Found | MemoryProblem | null> {
  const path = join(dir, name);
  try {
    const st = await lstat(path);
    let real = path;
    if (st.isSymbolicLink()) {
      real = await realpath(path);
      if (!isInside(root, real)) return { kind: "memory_file", status: "error", error: `${name} links outside ${scope === "global" ? "the data dir" : "the repository"}; it is not read`, errorKind: "symlink_escape", hint: path };
    }
    const target = st.isSymbolicLink() ? await lstat(real) : st;
    if (!target.isFile()) return null;
    return { kind: "memory_file", path, real, scope, bytes: target.size };
  } catch (err) {
    if (errnoOf(err) === "ENOENT" || errnoOf(err) === "ENOTDIR") return null;
    return { kind: "memory_file", status: "error", error: (err as Error).message, errorKind: "stat_failed", hint: path };
  }
}

const UNTRUSTED: MemoryProblem = {
  kind: "memory_file",
  status: "disabled",
  error: "The workspace is not trusted: its instruction files are not listed or given to the agent",
  errorKind: "untrusted_workspace",
  hint: "trust the workspace to use its AGENTS.md (and QWEN.md, CLAUDE.md, GEMINI.md)",
};

async function discover(where: MemoryWhere): Promise<{ files: Found[]; errors: MemoryProblem[] }> {
  const files: Found[] = [];
  const errors: MemoryProblem[] = [];
  const take = (found: Found | MemoryProblem | null) => {
    if (found === null) return;
    if ("real" in found) files.push(found);
    else errors.push(found);
  };
  for (const name of MEMORY_FILENAMES) take(await probe(where.dataDir, name, where.dataDir, "global"));
  if (!where.trusted) errors.push(UNTRUSTED);
  else {
    const dirs = await projectDirs(where.workspace);
    for (const dir of dirs) for (const name of MEMORY_FILENAMES) take(await probe(dir, name, dirs[0]!, "workspace"));
  }
  return { files, errors };
}

/** The files in prompt order, with their sizes (nothing is read). */
export async function listMemory(where: MemoryWhere): Promise<{ files: MemoryFile[]; errors: MemoryProblem[] }> {
  const { files, errors } = await discover(where);
  return { files: files.map(({ kind, path, scope, bytes }) => ({ kind, path, scope, bytes })), errors };
}

export interface LoadedMemory extends MemoryFile {
  readonly text: string;
  /** Less than the whole file went in (MAX_FILE_BYTES or MAX_TOTAL_BYTES). */
  readonly truncated: boolean;
}

/** Reads at most `cap` bytes of the regular file at `real` (never through a link swapped in). */
async function readHead(real: string, cap: number): Promise<{ text: string; size: number }> {
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error("not a regular file");
    const buffer = Buffer.alloc(Math.min(cap, st.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    // A cut inside a multi-byte character decodes to U+FFFD, which is dropped.
    return { text: buffer.subarray(0, bytesRead).toString("utf8").replace(/\uFFFD$/, ""), size: st.size };
  } finally {
    await handle.close();
  }
}

/** The files with their text, bounded (see the header); an unreadable one goes to `errors`. */
export async function loadMemory(where: MemoryWhere): Promise<{ files: LoadedMemory[]; errors: MemoryProblem[] }> {
  const { files, errors } = await discover(where);
  const loaded: LoadedMemory[] = [];
  let left = MAX_TOTAL_BYTES;
  for (const file of files) {
    if (left <= 0) {
      errors.push({ kind: "memory_file", status: "error", error: `instruction files past ${MAX_TOTAL_BYTES} bytes in all are not given to the agent`, errorKind: "memory_budget_exhausted", hint: file.path });
      continue;
    }
    try {
      const { text, size } = await readHead(file.real, Math.min(MAX_FILE_BYTES, left));
      const used = Buffer.byteLength(text);
      left -= used;
      loaded.push({ kind: file.kind, path: file.path, scope: file.scope, bytes: size, text, truncated: used < size });
    } catch (err) {
      errors.push({ kind: "memory_file", status: "error", error: (err as Error).message, errorKind: "read_failed", hint: file.path });
    }
  }
  return { files: loaded, errors };
}
