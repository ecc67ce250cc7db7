/**
 * The checkpoint's reads and writes of workspace files, through the same containment as the file
 * routes (`workspace/contained-fs.ts`): a path is resolved inside the workspace and opened with
 * O_NOFOLLOW, the descriptor re-checked, so no read or write follows a link out of it.
 *
 * Restores never follow a link at all: an entry that is a symlink (inside or out) is not read for a
 * snapshot and not written or removed by a restore, nor is one under a folder that became a link
 * (each is reported as failed). A restore writes a
 * temp file in the target's directory, opened through that directory's verified descriptor, and
 * renames it over the name; right before the rename the name is checked again, so a symlink swapped
 * in meanwhile is refused, and the directory itself cannot have been redirected (its descriptor is
 * the one verified). Removal works the same way.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, realpath, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ensureDirectory, openContained, openVerifiedDir, resolveExisting } from "../workspace/contained-fs.ts";
import { readAt } from "../workspace/file-reader.ts";
import { nameOf, parentOf } from "../workspace/paths.ts";

/** What a file is now, read for a snapshot or a comparison. */
export type FileNow =
  | { readonly kind: "missing" }
  | { readonly kind: "file"; readonly bytes: Buffer; readonly mode: number }
  /** Over the per-file bound: not read (its size only). */
  | { readonly kind: "too_large"; readonly size: number }
  /** A symlink, not a regular file, outside the workspace through a link, or an I/O error. */
  | { readonly kind: "unreadable" };

const errno = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** Reads workspace file `rel` if it is a regular file (not a link) of at most `cap` bytes. */
export async function readNow(root: string, rel: string, cap: number): Promise<FileNow> {
  let realParent: string;
  try {
    realParent = await resolveExisting(root, parentOf(rel));
  } catch (err) {
    return (err as { errorKind?: string }).errorKind === "path_not_found" ? { kind: "missing" } : { kind: "unreadable" };
  }
  const real = `${realParent}/${nameOf(rel)}`;
  try {
    const st = await lstat(real);
    if (!st.isFile()) return { kind: "unreadable" };
    if (st.size > cap) return { kind: "too_large", size: st.size };
  } catch (err) {
    return errno(err) === "ENOENT" ? { kind: "missing" } : { kind: "unreadable" };
  }
  let handle;
  try {
    handle = await openContained(root, real, rel, constants.O_RDONLY);
  } catch {
    return { kind: "unreadable" };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { kind: "unreadable" };
    if (st.size > cap) return { kind: "too_large", size: st.size };
    // One byte past the size read: a file that grew past the cap meanwhile is not cut silently.
    const bytes = await readAt(handle, 0, Math.min(st.size + 1, cap + 1));
    if (bytes.byteLength > cap) return { kind: "too_large", size: bytes.byteLength };
    return { kind: "file", bytes, mode: st.mode & 0o7777 };
  } catch {
    return { kind: "unreadable" };
  } finally {
    await handle.close();
  }
}

/** Why a restore of one file did not happen. */
export class RestoreRefused extends Error {}

/** Fails unless the entry `abs` is missing or a regular file (never a link). */
async function plainOrMissing(abs: string): Promise<{ exists: boolean; mode: number }> {
  try {
    const st = await lstat(abs);
    if (st.isSymbolicLink()) throw new RestoreRefused("it is a symbolic link now");
    if (!st.isFile()) throw new RestoreRefused("it is not a regular file now");
    return { exists: true, mode: st.mode & 0o7777 };
  } catch (err) {
    if (errno(err) === "ENOENT") return { exists: false, mode: 0 };
    throw err;
  }
}

/** `real`, the resolved folder of `rel`'s parent, unless a folder on the way is a link now (then the restore is refused). */
async function unlinkedParent(root: string, rel: string, real: string): Promise<string> {
  const parent = parentOf(rel);
  const realRoot = await realpath(root);
  if (real !== (parent === "" ? realRoot : join(realRoot, parent))) throw new RestoreRefused("a folder on its path is a symbolic link now");
  return real;
}

/** Puts `bytes` at workspace path `rel` (creating missing folders), with `mode` for a new file. */
export async function restoreFile(root: string, rel: string, bytes: Uint8Array, mode: number): Promise<void> {
  const parent = parentOf(rel);
  const dir = openVerifiedDir(root, await unlinkedParent(root, rel, await ensureDirectory(root, parent)), parent);
  try {
    const target = dir.entry(nameOf(rel));
    const now = await plainOrMissing(target);
    const temp = dir.entry(`.svc-rewind-${randomBytes(8).toString("hex")}.tmp`);
    const handle = await openContained(root, temp, rel, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.chmod(now.exists ? now.mode : mode);
      await handle.writeFile(bytes);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    try {
      // Checked again at the last moment: a link swapped in since is refused, not replaced.
      await plainOrMissing(target);
      await rename(temp, target);
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw err;
    }
  } finally {
    dir.close();
  }
}

/** Removes workspace file `rel` (a file the turn created); a missing one is fine. */
export async function removeFile(root: string, rel: string): Promise<void> {
  let realParent: string;
  try {
    realParent = await unlinkedParent(root, rel, await resolveExisting(root, parentOf(rel)));
  } catch (err) {
    if ((err as { errorKind?: string }).errorKind === "path_not_found") return;
    throw err;
  }
  const dir = openVerifiedDir(root, realParent, parentOf(rel));
  try {
    const target = dir.entry(nameOf(rel));
    if (!(await plainOrMissing(target)).exists) return;
    await unlink(target);
  } finally {
    dir.close();
  }
}
