/**
 * `POST /workspace/init`: makes sure the agent's workspace context file (`QWEN.md` for Qwen Code,
 * `AGENTS.md` otherwise) exists at the workspace root, as the reference daemon's `/init` does. The
 * file is created empty; a blank one is left alone (`noop`); one with content is a 409
 * `workspace_init_conflict` unless `force`, which empties it (`overwrote`). A symlink at the name is
 * never followed (O_NOFOLLOW): the request is refused instead.
 */
import { constants } from "node:fs";
import { DaemonError, FsError } from "../errors/daemon-error.ts";
import { openContained, resolveExisting } from "./contained-fs.ts";
import { readAt } from "./file-reader.ts";

export type InitAction = "created" | "overwrote" | "noop";

/** How much of an existing file is read to tell a blank one from one with content; a larger file counts as content. */
const BLANK_SCAN_BYTES = 64 * 1024;
/** A context file is a document anyone on the machine may read, like the workspace's other files. */
const NEW_FILE_MODE = 0o644;

const refused = (err: FsError, name: string) =>
  new DaemonError(err.status, "workspace_init_refused", `Cannot initialize ${name}: ${err.message}`, { errorKind: err.errorKind, filename: name });

/** Size of the existing file, and whether it holds anything but whitespace; null when there is none. */
async function existing(root: string, target: string, name: string): Promise<{ size: number; blank: boolean } | null> {
  let handle;
  try {
    handle = await openContained(root, target, name, constants.O_RDONLY);
  } catch (err) {
    if (err instanceof FsError && err.errorKind === "path_not_found") return null;
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new DaemonError(400, "workspace_init_refused", `${name} is not a regular file`, { filename: name });
    if (st.size > BLANK_SCAN_BYTES) return { size: st.size, blank: false };
    return { size: st.size, blank: (await readAt(handle, 0, st.size)).toString("utf8").trim() === "" };
  } finally {
    await handle.close();
  }
}

/** Creates, keeps or (with `force`) empties `<root>/<name>`; resolves with the absolute path and what was done. */
export async function initContextFile(root: string, name: string, force: boolean): Promise<{ path: string; action: InitAction }> {
  const dir = await resolveExisting(root, "");
  const target = `${dir}/${name}`;
  try {
    const found = await existing(root, target, name);
    let action: InitAction;
    if (found === null) {
      action = "created";
      await (await openContained(root, target, name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, NEW_FILE_MODE)).close();
    } else if (found.blank) {
      action = "noop";
    } else if (!force) {
      throw new DaemonError(409, "workspace_init_conflict", `${name} already has content; pass force: true to empty it`, { path: target, existingSize: found.size });
    } else {
      action = "overwrote";
      await (await openContained(root, target, name, constants.O_WRONLY | constants.O_TRUNC)).close();
    }
    return { path: target, action };
  } catch (err) {
    throw err instanceof FsError ? refused(err, name) : err;
  }
}
