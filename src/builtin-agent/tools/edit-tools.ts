/**
 * The file-changing tools: write_file (create or replace) and edit (one exact-match replacement).
 * Both compute their diff before asking, and apply it only if the file still has the content the
 * diff was computed from (the expected-hash check of the file routes), so an approval never lands
 * on a file that changed meanwhile. A target on a protected path (by its name or through a
 * symlink, `workspace/protected-target.ts`) is marked so the call always asks; one that became
 * protected between that check and the write (a folder swapped for a link) is not written.
 * Right before writing, each tells the client (`ToolContext.beforeWrite`), which keeps the file's
 * content for a rewind.
 */
import { FsError } from "../../errors/daemon-error.ts";
import { TEXT_READ_CAP_BYTES, WRITE_CAP_BYTES } from "../../workspace/file-limits.ts";
import { normalizeRequestPath } from "../../workspace/paths.ts";
import { protectedTarget } from "../../workspace/protected-target.ts";
import { applySingleEdit } from "../../workspace/text-edit.ts";
import { detectLineEnding } from "../../workspace/text-codec.ts";
import type { WorkspaceFiles } from "../../workspace/workspace-files.ts";
import { locate, stringArg, ToolInputError, type AgentTool } from "./tool.ts";

interface Current {
  readonly text: string;
  readonly hash: string;
}

/** The whole current text and hash of a file, null when it does not exist. */
async function current(files: WorkspaceFiles, path: string): Promise<Current | null> {
  try {
    const file = await files.readText(path, { maxBytes: TEXT_READ_CAP_BYTES });
    if (file.hash === undefined || file.truncated) throw new ToolInputError(`${path} is larger than ${TEXT_READ_CAP_BYTES} bytes and cannot be edited by this tool`);
    return { text: file.content, hash: file.hash };
  } catch (err) {
    if (err instanceof FsError && err.errorKind === "path_not_found") return null;
    throw err;
  }
}

/** The protected path a write to `path` changes, as the user is shown it (`notes -> .git/config` through a link), or undefined. */
async function protectedOf(files: WorkspaceFiles, path: string, folders: readonly string[]): Promise<string | undefined> {
  const rel = normalizeRequestPath(files.root, path);
  const target = await protectedTarget(files.root, rel, folders);
  if (target === null) return undefined;
  return target.rel === rel ? rel : `${rel} -> ${target.rel}`;
}

/** Refuses a write whose target became protected after a check that found it was not. */
async function stillUnprotected(files: WorkspaceFiles, path: string, checked: string | undefined, folders: readonly string[]): Promise<void> {
  if (checked === undefined && (await protectedOf(files, path, folders)) !== undefined) throw new Error(`${path} became a protected path after it was checked; nothing was written`);
}

export const writeFileTool: AgentTool = {
  name: "write_file",
  description: "Write a whole text file in the workspace, creating it (and its directories must exist) or replacing it.",
  parameters: { type: "object", properties: { file_path: { type: "string" }, content: { type: "string" } }, required: ["file_path", "content"] },
  kind: "edit",
  toolClass: "edit",
  async prepare(args, { files, protectedFolders }) {
    const path = stringArg(args, "file_path");
    const content = stringArg(args, "content");
    // Refused before the diff is computed or shown: nothing of an over-cap write reaches the client.
    if (Buffer.byteLength(content) > WRITE_CAP_BYTES) throw new ToolInputError(`content is ${Buffer.byteLength(content)} bytes, over the ${WRITE_CAP_BYTES}-byte write limit; write a smaller file`);
    const abs = locate(files, path);
    const before = await current(files, path);
    const diff = { type: "diff" as const, path: abs, oldText: before?.text ?? null, newText: content };
    const protectedPath = await protectedOf(files, path, protectedFolders);
    return {
      title: `${before ? "Overwrite" : "Create"} ${path}`,
      locations: [{ path: abs }],
      preview: [diff],
      ...(protectedPath === undefined ? {} : { protectedPath }),
      async run({ beforeWrite }) {
        await stillUnprotected(files, path, protectedPath, protectedFolders);
        await beforeWrite(abs);
        const written = before
          ? await files.write(path, { content, mode: "replace", expectedHash: before.hash })
          : await files.write(path, { content, mode: "create" });
        return { text: `${before ? "Replaced" : "Created"} ${written.path} (${written.sizeBytes} bytes)`, content: [diff], rawOutput: { path: written.path, sizeBytes: written.sizeBytes, created: !before } };
      },
    };
  },
};

export const editTool: AgentTool = {
  name: "edit",
  description: "Replace exactly one occurrence of old_string with new_string in a workspace file. old_string must match the file exactly, once.",
  parameters: { type: "object", properties: { file_path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } }, required: ["file_path", "old_string", "new_string"] },
  kind: "edit",
  toolClass: "edit",
  async prepare(args, { files, protectedFolders }) {
    const path = stringArg(args, "file_path");
    const oldText = stringArg(args, "old_string");
    const newText = stringArg(args, "new_string");
    if (oldText === "") throw new ToolInputError("old_string must not be empty; use write_file to create a file");
    const abs = locate(files, path);
    const before = await current(files, path);
    if (!before) throw new ToolInputError(`${path} does not exist; use write_file to create it`);
    const outcome = applySingleEdit(before.text, oldText, newText, detectLineEnding(before.text));
    if (outcome.kind === "not_found") throw new ToolInputError(`old_string was not found in ${path}; read the file and copy the text exactly`);
    if (outcome.kind === "ambiguous") throw new ToolInputError(`old_string occurs ${outcome.occurrences} times in ${path}; include more context so it matches once`);
    const diff = { type: "diff" as const, path: abs, oldText: before.text, newText: outcome.text };
    const protectedPath = await protectedOf(files, path, protectedFolders);
    return {
      title: `Edit ${path}`,
      locations: [{ path: abs }],
      preview: [diff],
      ...(protectedPath === undefined ? {} : { protectedPath }),
      async run({ beforeWrite }) {
        await stillUnprotected(files, path, protectedPath, protectedFolders);
        await beforeWrite(abs);
        const edited = await files.edit(path, { oldText, newText, expectedHash: before.hash });
        return { text: `Edited ${edited.path}`, content: [diff], rawOutput: { path: edited.path, sizeBytes: edited.sizeBytes } };
      },
    };
  },
};
