/**
 * `POST /workspace/memory`: edits the user's (`<data dir>/AGENTS.md`, scope `global`) or the
 * project's (`<workspace>/AGENTS.md`, scope `workspace`) instruction file, as the reference's
 * `writeWorkspaceContextFile` does: `replace` writes the content as the whole file; `append` (the
 * default) adds it under an "## Added Memories" section (created at the end when missing, else the
 * content goes at that section's end); an append of only whitespace changes nothing.
 *
 * Atomic: the new file is written beside the old one (O_EXCL) and renamed over it. A link at the
 * name is never followed or replaced: 409 `memory_file_is_link`. Writes to one file are serialized.
 * Bounds: the content MAX_CONTENT_BYTES (400 `content_too_large`), the file it makes
 * MAX_RESULT_BYTES (413 `memory_file_too_large`).
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { DaemonError } from "../../errors/daemon-error.ts";
import { MEMORY_WRITE_FILENAME, type MemoryScope } from "./memory-files.ts";

export const MAX_CONTENT_BYTES = 1024 * 1024;
export const MAX_RESULT_BYTES = 2 * 1024 * 1024;
export const MEMORY_SECTION_HEADER = "## Added Memories";

export type MemoryWriteMode = "append" | "replace";

export interface MemoryWrite {
  readonly scope: MemoryScope;
  readonly mode: MemoryWriteMode;
  readonly content: string;
  readonly workspace: string;
  readonly dataDir: string;
}

export interface MemoryWriteResult {
  readonly filePath: string;
  readonly bytesWritten: number;
  readonly changed: boolean;
}

const locks = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier write of `path` has settled. */
async function serialized<T>(path: string, work: () => Promise<T>): Promise<T> {
  const before = locks.get(path) ?? Promise.resolve();
  const run = before.then(work, work);
  const tail = run.catch(() => {});
  locks.set(path, tail);
  try {
    return await run;
  } finally {
    if (locks.get(path) === tail) locks.delete(path);
  }
}

/** The file's text, "" when there is none; refuses a link or anything but a regular file. */
async function current(path: string): Promise<string> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) throw new DaemonError(409, "memory_file_is_link", `${path} is a symbolic link; it is not followed or replaced`, { filePath: path });
    if (!st.isFile()) throw new DaemonError(409, "memory_file_not_regular", `${path} is not a regular file`, { filePath: path });
    if (st.size > MAX_RESULT_BYTES) throw tooLarge(path, st.size);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw err;
  }
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

const tooLarge = (path: string, bytes: number) =>
  new DaemonError(413, "memory_file_too_large", `${path} would be ${bytes} bytes, over the ${MAX_RESULT_BYTES}-byte limit; trim it or use mode "replace"`, { filePath: path, limit: MAX_RESULT_BYTES });

/** `existing` with `addition` at the end of its Added Memories section. */
export function appended(existing: string, addition: string): string {
  const text = addition.replace(/^\n+|\n+$/g, "");
  if (existing === "") return `${MEMORY_SECTION_HEADER}\n${text}\n`;
  const at = existing.indexOf(MEMORY_SECTION_HEADER);
  const sep = existing.endsWith("\n") ? "" : "\n";
  if (at === -1) return `${existing}${sep}\n${MEMORY_SECTION_HEADER}\n${text}\n`;
  const rest = existing.slice(at + MEMORY_SECTION_HEADER.length);
  const next = rest.search(/\n#{1,2} /);
  if (next === -1) return `${existing}${sep}${text}\n`;
  const insertAt = at + MEMORY_SECTION_HEADER.length + next + 1;
  return `${existing.slice(0, insertAt).replace(/\n+$/, "")}\n${text}\n\n${existing.slice(insertAt)}`;
}

export async function writeMemory(req: MemoryWrite): Promise<MemoryWriteResult> {
  const dir = req.scope === "global" ? req.dataDir : req.workspace;
  const filePath = join(dir, MEMORY_WRITE_FILENAME);
  if (Buffer.byteLength(req.content) > MAX_CONTENT_BYTES) throw new DaemonError(400, "content_too_large", `\`content\` exceeds the ${MAX_CONTENT_BYTES}-byte limit`);
  if (req.mode === "append" && req.content.trim() === "") return { filePath, bytesWritten: 0, changed: false };
  return await serialized(filePath, async () => {
    const next = req.mode === "replace" ? (await current(filePath), req.content) : appended(await current(filePath), req.content);
    const bytes = Buffer.byteLength(next);
    if (bytes > MAX_RESULT_BYTES) throw tooLarge(filePath, bytes);
    if (req.scope === "global") await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = join(dir, `.${MEMORY_WRITE_FILENAME}.${randomBytes(6).toString("hex")}.tmp`);
    // The user's file is private like the rest of the data dir; the project's is a document of the repository.
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, req.scope === "global" ? 0o600 : 0o644);
    try {
      await handle.writeFile(next, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, filePath);
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw err;
    }
    return { filePath, bytesWritten: bytes, changed: true };
  });
}
