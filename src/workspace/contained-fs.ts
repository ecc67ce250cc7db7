/**
 * Workspace path containment, the filesystem part: resolves normalized workspace-relative paths
 * through symlinks and refuses any whose real location leaves the workspace (`symlink_escape`),
 * intermediate directory links included; and opens files and directories so that a link swapped in
 * between the check and the open cannot redirect the read or write.
 *
 * The open-time check: open with O_NOFOLLOW (the last component may not have become a link), then
 * ask the kernel where the opened descriptor really is (`/proc/self/fd/<fd>`) and refuse it unless
 * that lies inside the workspace. Where /proc is missing, the descriptor's device and inode are
 * compared with a fresh resolution of the path instead (narrower, but still closes a plain swap).
 * Anything that creates an entry (temp files, links, renames, directories) goes through a verified
 * directory's descriptor (`VerifiedDir`), so even a swap after the check cannot place it outside.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, opendirSync, readSync, readlinkSync, realpathSync, statSync, type Dir, type Dirent } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, stat, type FileHandle } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { alreadyExists, fromErrno, parseError, pathNotFound, shownPath, symlinkEscape } from "./fs-errors.ts";
import { absoluteOf, isInside, nameOf, parentOf } from "./paths.ts";

const { O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY, O_RDONLY } = constants;

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** Most links followed by hand through a dangling chain (the kernel gives up after 40 as well). */
const MAX_LINK_HOPS = 40;

/**
 * For a `rel` that does not resolve: true when the deepest entry that exists on the way to it is a
 * symlink leading outside the workspace, directly or through further links (each hop followed while
 * it stays inside, at most MAX_LINK_HOPS, more counting as a loop), or lies in a directory outside.
 */
async function danglingEscapes(root: string, rel: string, hops = 0): Promise<boolean> {
  for (let prefix = rel; prefix !== ""; prefix = parentOf(prefix)) {
    const abs = absoluteOf(root, prefix);
    let isLink: boolean;
    try {
      isLink = (await lstat(abs)).isSymbolicLink();
    } catch {
      continue;
    }
    const realParent = await realpath(dirname(abs)).catch(() => null);
    if (realParent === null || !isInside(root, realParent)) return true;
    if (!isLink) return false;
    const target = resolve(realParent, await readlink(abs).catch(() => ""));
    if (!isInside(root, target)) return true;
    return hops >= MAX_LINK_HOPS || (await danglingEscapes(root, relative(root, target), hops + 1));
  }
  return false;
}

/** Called when `rel` does not resolve: `symlink_escape` when a dangling link leads outside, else `path_not_found`. */
async function missing(root: string, rel: string): Promise<never> {
  throw (await danglingEscapes(root, rel)) ? symlinkEscape(rel) : pathNotFound(rel);
}

/** Real path of an existing entry (symlinks followed); it must lie inside the workspace. */
export async function resolveExisting(root: string, rel: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(absoluteOf(root, rel));
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT" || code === "ENOTDIR") return await missing(root, rel);
    throw fromErrno(err, rel);
  }
  if (!isInside(root, real)) throw symlinkEscape(rel);
  return real;
}

/** Real path of directory `rel`, creating missing directories one at a time, each re-checked. */
export async function ensureDirectory(root: string, rel: string): Promise<string> {
  let real: string | null = null;
  try {
    real = await resolveExisting(root, rel);
  } catch (err) {
    if ((err as { errorKind?: string }).errorKind !== "path_not_found") throw err;
  }
  if (real === null) {
    const parent = openVerifiedDir(root, await ensureDirectory(root, parentOf(rel)), parentOf(rel));
    try {
      await mkdir(parent.entry(nameOf(rel)));
    } catch (err) {
      if (errnoOf(err) !== "EEXIST") throw fromErrno(err, rel);
    } finally {
      parent.close();
    }
    real = await resolveExisting(root, rel);
  }
  if (!(await stat(real)).isDirectory()) throw parseError(`${shownPath(rel)} is not a directory`);
  return real;
}

/**
 * Where a new file `rel` goes: its parent's real path (missing parents created) and the target path.
 * Refuses when anything already exists there; a dangling symlink pointing outside is `symlink_escape`
 * (creation never follows it: the file is linked into place, see file-writer.ts).
 */
export async function resolveForCreate(root: string, rel: string): Promise<{ realParent: string; target: string }> {
  const realParent = await ensureDirectory(root, parentOf(rel));
  const target = `${realParent}/${nameOf(rel)}`;
  let existing;
  try {
    existing = await lstat(target);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return { realParent, target };
    throw fromErrno(err, rel);
  }
  if (existing.isSymbolicLink()) await checkSymlink(root, rel);
  throw alreadyExists(rel);
}

/**
 * For an entry `rel` known to be a symlink: refuses it (`symlink_escape`) when following it, through
 * any further links, leads outside the workspace, whether the final target exists or not. A link
 * dangling inside passes.
 */
export async function checkSymlink(root: string, rel: string): Promise<void> {
  try {
    await resolveExisting(root, rel);
  } catch (err) {
    if ((err as { errorKind?: string }).errorKind !== "path_not_found") throw err;
  }
}

/** Real path of `rel`'s parent (symlinks followed, must stay inside) joined with `rel`'s own name. */
export async function resolveParent(root: string, rel: string): Promise<string> {
  if (rel === "") return root;
  return `${await resolveExisting(root, parentOf(rel))}/${nameOf(rel)}`;
}

/** Where descriptor `fd` really is, or null where /proc is not available. */
function procPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Refuses a descriptor whose real location is outside the workspace (see the file comment).
 * Returns true when the kernel's /proc view was used (the descriptor is then reachable through it).
 */
function verifyDescriptor(root: string, fd: number, real: string, rel: string): boolean {
  const actual = procPath(fd);
  if (actual !== null) {
    if (!isInside(root, actual)) throw symlinkEscape(rel);
    return true;
  }
  const opened = fstatSync(fd);
  let again: string;
  let now;
  try {
    again = realpathSync(real);
    now = statSync(again);
  } catch {
    throw symlinkEscape(rel);
  }
  if (again !== real || opened.dev !== now.dev || opened.ino !== now.ino) throw symlinkEscape(rel);
  return false;
}

/**
 * Opens the already-resolved real path `real` of `rel` with `flags` (plus O_NOFOLLOW and O_NONBLOCK,
 * so a FIFO cannot stall the open) and verifies the descriptor lies inside the workspace.
 */
export async function openContained(root: string, real: string, rel: string, flags: number, mode?: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(real, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (err) {
    throw fromErrno(err, rel);
  }
  try {
    verifyDescriptor(root, handle.fd, real, rel);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * A directory opened and verified to lie inside the workspace. On Linux, `self` and `entry(name)`
 * reach it through its descriptor (`/proc/self/fd/<fd>/<name>`, the equivalent of `openat`), so
 * files created, renamed or linked there land in this very directory even if its path is swapped
 * for a symlink meanwhile. Elsewhere they are plain paths, checked once at open. `close` it.
 */
export interface VerifiedDir {
  readonly self: string;
  entry(name: string): string;
  close(): void;
}

export function openVerifiedDir(root: string, real: string, rel: string): VerifiedDir {
  let fd: number;
  try {
    fd = openSync(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    // With O_DIRECTORY, a symlink where the resolved directory was fails ENOTDIR rather than ELOOP.
    if (errnoOf(err) === "ENOTDIR" && lstatSync(real, { throwIfNoEntry: false })?.isSymbolicLink()) throw symlinkEscape(rel);
    throw fromErrno(err, rel);
  }
  let viaProc: boolean;
  try {
    viaProc = verifyDescriptor(root, fd, real, rel);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  const self = viaProc ? `/proc/self/fd/${fd}` : real;
  return { self, entry: (name) => `${self}/${name}`, close: () => closeSync(fd) };
}

/** A directory being iterated; `close` must be called. */
export interface ContainedDir {
  readSync(): Dirent | null;
  close(): void;
}

/**
 * Opens directory `real` (of `rel`) for iteration through a `VerifiedDir`, so a later swap of the
 * path cannot change what is listed. Synchronous: walkers iterate with `readSync` and yield to the
 * event loop themselves.
 */
export function openDirContained(root: string, real: string, rel: string): ContainedDir {
  const verified = openVerifiedDir(root, real, rel);
  let dir: Dir;
  try {
    dir = opendirSync(verified.self);
  } catch (err) {
    verified.close();
    throw fromErrno(err, rel);
  }
  return {
    readSync: () => dir.readSync(),
    close() {
      dir.closeSync();
      verified.close();
    },
  };
}

/**
 * Reads at most `cap` bytes of regular file `name` in directory `dir` (absolute); null when it is
 * absent, not a regular file, a symlink, or (where /proc tells) opened outside the workspace.
 */
export function readSmallFileSync(root: string, dir: string, name: string, cap: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(`${dir}/${name}`, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const actual = procPath(fd);
    if (actual !== null && !isInside(root, actual)) return null;
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const buf = Buffer.allocUnsafe(Math.min(st.size, cap));
    let filled = 0;
    while (filled < buf.length) {
      const n = readSync(fd, buf, filled, buf.length - filled, null);
      if (n === 0) break;
      filled += n;
    }
    return buf.subarray(0, filled);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
