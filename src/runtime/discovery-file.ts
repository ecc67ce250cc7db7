/**
 * Discovery files: how a launcher finds the daemon already serving a workspace instead of starting a
 * second one. Each running daemon owns one file:
 *
 *   <data dir>/daemons/<key>.<pid>.<startTime>.json     (dir 0700, file 0600)
 *
 * `<key>` is the SHA-256 (hex) of the workspace's canonical real path, `<pid>.<startTime>` the
 * daemon's process identity (`na` where the start time is unknown). The content is one JSON object:
 * the `--ready-json` fields plus `startedAt` and `pidStartTime` (never the token; with `--token-file`,
 * the file's path).
 *
 * Rules:
 * - Written atomically (a private temp file renamed into place): a reader sees the whole file or
 *   none of it. Not fsynced: a file describes a running process, so one a crash cut short names a
 *   pid that no longer runs, and is skipped and swept as stale (an fsync cost the boot 1–30 ms).
 * - One file per daemon, named by its own identity, so concurrent daemons for one workspace never
 *   write or delete each other's files. A lookup returns the live ones, earliest started first.
 * - Stale files (the pid is gone, or now names another process) are skipped by lookups and swept by
 *   the next daemon that publishes for the same workspace, with any temp file a killed daemon left.
 * - A daemon removes its file on clean exit, and only while the file still records it.
 * - Only this user's files are trusted, so another user cannot point a launcher (and its bearer
 *   token) at a daemon of theirs. The folder must be a real directory (not a symlink) owned by this
 *   uid with no group or other access: a folder of ours with a looser mode is restricted to 0700
 *   (with a warning), any other is refused. A record is read only when it is a regular file (not a
 *   symlink, FIFO or device: opened with O_NOFOLLOW | O_NONBLOCK and checked on the open descriptor)
 *   owned by this uid with mode 0600, and at most MAX_RECORD_BYTES + 1 bytes of it are ever read.
 *   A lookup returns it only while its pid runs as this uid.
 *   (The data dir above the folder is the user's own, as for every other file of the daemon.)
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { runsAs, stillRunning } from "./process-identity.ts";

/** Subfolder of the data dir that holds the discovery files. */
export const DISCOVERY_FOLDER = "daemons";
/** A discovery file is a few hundred bytes; anything larger than this is not one and is skipped (read at most this plus one byte). */
const MAX_RECORD_BYTES = 16 * 1024;
/** The only modes a trusted folder and record have. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** How many files of one workspace a lookup or sweep reads; the rest are left alone (a directory someone flooded). */
const MAX_FILES_PER_WORKSPACE = 256;

export interface DiscoveryRecord {
  readonly ready: true;
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly version: string;
  readonly workspace: string;
  readonly auth: "none" | "bearer";
  /** With `--token-file`: the file holding the token (this user's, 0600), for a launcher that did not start the daemon. */
  readonly tokenFile?: string;
  /** ISO time the daemon process started. */
  readonly startedAt: string;
  /** Kernel start time of `pid` (see process-identity.ts), null where unknown; defeats PID reuse. */
  readonly pidStartTime: string | null;
}

export interface PublishedDiscovery {
  readonly path: string;
  /** Deletes the file if it still records this daemon (idempotent, never throws). */
  remove(): void;
}

/** Where a lookup or publish reports something the user should know (a folder repaired or refused). */
export type Warn = (message: string) => void;

export const discoveryDir = (dataDir: string) => join(dataDir, DISCOVERY_FOLDER);

/** This process's uid, or null where the platform has no uids (Windows: no owner or mode checks). */
const ownUid = (): number | null => process.getuid?.() ?? null;

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** The discovery folder cannot be trusted; the message says why. */
export class UnsafeDiscoveryFolderError extends Error {}

export const workspaceKey = (workspace: string) => new Bun.CryptoHasher("sha256").update(workspace).digest("hex");

const fileName = (workspace: string, pid: number, startTime: string | null) => `${workspaceKey(workspace)}.${pid}.${startTime ?? "na"}.json`;

/** `<key>.<pid>.<startTime|na>.json` → the identity it names, or null for any other name (temp files included). */
function parseName(name: string, key: string): { pid: number; startTime: string | null } | null {
  const match = /^([0-9a-f]{64})\.(\d{1,10})\.(\d{1,20}|na)\.json$/.exec(name);
  if (match === null || match[1] !== key) return null;
  return { pid: Number(match[2]), startTime: match[3] === "na" ? null : match[3]! };
}

function isRecord(value: unknown): value is DiscoveryRecord {
  const r = value as Record<string, unknown> | null;
  return (
    typeof r === "object" && r !== null && r.ready === true && typeof r.url === "string" && Number.isInteger(r.port) && Number.isInteger(r.pid) &&
    typeof r.version === "string" && typeof r.workspace === "string" && (r.auth === "none" || r.auth === "bearer") &&
    (r.tokenFile === undefined || typeof r.tokenFile === "string") &&
    typeof r.startedAt === "string" && (r.pidStartTime === null || typeof r.pidStartTime === "string")
  );
}

/**
 * Checks the discovery folder `dir` before anything in it is trusted (see the rules above), on the
 * opened folder itself so it cannot be swapped for a symlink between a check and a use. A folder of
 * ours with another mode is set to 0700, and `warn` says so when it was open to others. Throws UnsafeDiscoveryFolderError
 * for a folder that is refused, and the filesystem error when there is none (ENOENT).
 */
function checkFolder(dir: string, warn: Warn): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    // With O_DIRECTORY, Linux answers ENOTDIR for a symlink too; say which it is.
    if (errnoOf(err) === "ELOOP" || errnoOf(err) === "ENOTDIR")
      throw new UnsafeDiscoveryFolderError(`discovery folder ${dir} is ${isSymlink(dir) ? "a symbolic link" : "not a directory"}`);
    throw err;
  }
  try {
    const uid = ownUid();
    if (uid === null) return;
    const st = fstatSync(fd);
    if (st.uid !== uid) throw new UnsafeDiscoveryFolderError(`discovery folder ${dir} is owned by uid ${st.uid}, not by this user (uid ${uid})`);
    const mode = st.mode & 0o777;
    if (mode === DIR_MODE) return;
    // Also a folder just made under a umask that took owner bits; only one open to others is news.
    fchmodSync(fd, DIR_MODE);
    if ((mode & 0o077) !== 0) warn(`discovery folder ${dir} had mode ${mode.toString(8).padStart(4, "0")}; restricted it to 0700`);
  } finally {
    closeSync(fd);
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The record in `path`, or null when it is missing, not a regular file of ours with mode 0600,
 * oversized or not a discovery record. Never blocks: a FIFO or a device is refused on its
 * descriptor, and at most MAX_RECORD_BYTES + 1 bytes are read whatever the file claims.
 */
function readRecord(path: string): DiscoveryRecord | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    const uid = ownUid();
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return null;
    if (uid !== null && (st.uid !== uid || (st.mode & 0o777) !== FILE_MODE)) return null;
    const buf = Buffer.allocUnsafe(MAX_RECORD_BYTES + 1);
    let filled = 0;
    for (;;) {
      const n = readSync(fd, buf, filled, buf.length - filled, null);
      filled += n;
      if (n === 0 || filled === buf.length) break;
    }
    if (filled > MAX_RECORD_BYTES) return null;
    const parsed: unknown = JSON.parse(buf.toString("utf8", 0, filled));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

interface FileEntry {
  readonly path: string;
  readonly pid: number;
  readonly startTime: string | null;
  /** A `.<name>.tmp` file: a write in progress, or left by a daemon killed while writing. */
  readonly temp: boolean;
}

/** The discovery files (and temp files) of `workspace` with the identity each name carries (at most MAX_FILES_PER_WORKSPACE). */
function filesOf(dir: string, workspace: string): FileEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const key = workspaceKey(workspace);
  const out: FileEntry[] = [];
  for (const name of names) {
    const temp = name.startsWith(".") && name.endsWith(".tmp");
    const id = parseName(temp ? name.slice(1, -".tmp".length) : name, key);
    if (id !== null) out.push({ path: join(dir, name), ...id, temp });
    if (out.length >= MAX_FILES_PER_WORKSPACE) break;
  }
  return out;
}

/**
 * Publishes `record` for its workspace: checks the folder (creating it), sweeps the workspace's
 * stale files, then writes this daemon's file atomically. Throws UnsafeDiscoveryFolderError for a
 * folder it refuses, or the filesystem error when the data dir is unusable (the caller warns and
 * carries on serving).
 */
export function publishDiscovery(dataDir: string, record: DiscoveryRecord, warn: Warn): PublishedDiscovery {
  const dir = discoveryDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  checkFolder(dir, warn);
  for (const file of filesOf(dir, record.workspace))
    if (!stillRunning(file)) tryUnlink(file.path);

  const name = fileName(record.workspace, record.pid, record.pidStartTime);
  const path = join(dir, name);
  // Named by this process's identity too, so no other daemon ever opens it; `wx` refuses a planted one.
  const temp = join(dir, `.${name}.tmp`);
  const fd = openSync(temp, "wx", FILE_MODE);
  try {
    // Exactly 0600 whatever the umask, or lookups would not trust it.
    fchmodSync(fd, FILE_MODE);
    writeSync(fd, `${JSON.stringify(record)}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (err) {
    tryUnlink(temp);
    throw err;
  }
  return {
    path,
    remove() {
      const onDisk = readRecord(path);
      if (onDisk !== null && onDisk.pid === record.pid && onDisk.pidStartTime === record.pidStartTime && onDisk.startedAt === record.startedAt) tryUnlink(path);
    },
  };
}

/**
 * The live daemons of this user serving `workspace` (a canonical real path), earliest started first.
 * None when there is no folder, or when the folder is refused or unreadable (`warn` says why).
 */
export function liveDaemons(dataDir: string, workspace: string, warn: Warn): DiscoveryRecord[] {
  const dir = discoveryDir(dataDir);
  try {
    checkFolder(dir, warn);
  } catch (err) {
    if (err instanceof UnsafeDiscoveryFolderError) warn(`${err.message}; not trusting what it holds`);
    else if (errnoOf(err) !== "ENOENT") warn(`cannot read discovery folder ${dir} (${errnoOf(err) ?? (err as Error).message})`);
    return [];
  }
  const uid = ownUid();
  const live: DiscoveryRecord[] = [];
  for (const file of filesOf(dir, workspace)) {
    if (file.temp) continue;
    const record = readRecord(file.path);
    // The content must agree with the name (a copied or edited file is not trusted) and the process must still run.
    if (record === null || record.workspace !== workspace || record.pid !== file.pid || record.pidStartTime !== file.startTime) continue;
    if (stillRunning(file) && (uid === null || runsAs(file.pid, uid))) live.push(record);
  }
  return live.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone, or not ours to remove
  }
}
