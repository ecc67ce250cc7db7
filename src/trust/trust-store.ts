/**
 * The trust store: the user's folder trust decisions, `<data dir>/trust.json`, never in a
 * workspace. One JSON object, `{"v": 1, "folders": {"<canonical absolute path>": "TRUST_FOLDER" |
 * "DO_NOT_TRUST"}}`.
 *
 * Reading trusts nothing that sits at the path: the file is opened without following a symlink and
 * the opened descriptor is examined. It must be a regular file owned by this user that nobody else
 * can write (mode 0600 when svc writes it), at most MAX_STORE_BYTES long (at most one byte more is
 * ever read), holding at most MAX_ENTRIES entries of absolute, normalized paths of at most
 * MAX_PATH_BYTES. Anything else is damaged: the store then fails closed (every folder it would
 * decide is untrusted, see trust-rules.ts) and is never overwritten, so a user can repair it.
 *
 * Writing is atomic: a temp file in the data dir (0600, created exclusively), written, fsynced,
 * renamed over the store, then the directory fsynced; a reader sees the old store or the new one.
 * Two processes changing the store at the same moment (a `svc trust` beside a daemon's
 * `POST /workspace/trust/request`): the last rename wins; each change reads the store right before
 * writing it.
 */
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { TRUST_LEVELS, type TrustLevel, type TrustRule } from "./trust-rules.ts";

export const STORE_FILE = "trust.json";
/** A larger store is damaged (a thousand long paths fit with room to spare). */
export const MAX_STORE_BYTES = 256 * 1024;
/** Most entries; a change past it is refused (the store is left as it was). */
export const MAX_ENTRIES = 1000;
/** Longest path an entry may name, in UTF-8 bytes (Linux's PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

export class TrustStoreError extends Error {
  constructor(
    /** `damaged`: the store cannot be read as a trust store; `unwritable`: the write failed; `full`: MAX_ENTRIES reached. */
    readonly kind: "damaged" | "unwritable" | "full",
    message: string,
  ) {
    super(message);
  }
}

export type StoreContents = { readonly ok: true; readonly rules: readonly TrustRule[] } | { readonly ok: false; readonly problem: string };

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code ?? (err as Error).message;

export const storePath = (dataDir: string) => join(dataDir, STORE_FILE);

/**
 * What identifies the store's current content without reading it: its inode, size and change
 * time, or "absent". A reader caches a read under this key and reads again when it changes.
 */
export function storeVersion(dataDir: string): string {
  try {
    const st = lstatSync(storePath(dataDir), { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch (err) {
    return errnoOf(err) === "ENOENT" ? "absent" : `error:${errnoOf(err)}`;
  }
}

/** The store's entries: none when there is no store; `ok: false` with the problem when it is damaged. */
export function readTrustStore(dataDir: string): StoreContents {
  const file = storePath(dataDir);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return { ok: true, rules: [] };
    if (errnoOf(err) === "ELOOP") return { ok: false, problem: `${file} is a symbolic link` };
    return { ok: false, problem: `${file} cannot be read (${errnoOf(err)})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, problem: `${file} is not a regular file` };
    if (process.getuid && st.uid !== process.getuid()) return { ok: false, problem: `${file} is owned by another user` };
    if ((st.mode & 0o022) !== 0) return { ok: false, problem: `${file} is writable by other users (mode ${(st.mode & 0o777).toString(8)})` };
    const buf = Buffer.allocUnsafe(MAX_STORE_BYTES + 1);
    let filled = 0;
    for (;;) {
      const n = readSync(fd, buf, filled, buf.length - filled, null);
      filled += n;
      if (n === 0 || filled === buf.length) break;
    }
    if (filled > MAX_STORE_BYTES) return { ok: false, problem: `${file} is larger than ${MAX_STORE_BYTES} bytes` };
    return parseStore(file, buf.toString("utf8", 0, filled));
  } catch (err) {
    return { ok: false, problem: `${file} cannot be read (${errnoOf(err)})` };
  } finally {
    closeSync(fd);
  }
}

/** Whether `path` may be an entry: absolute, normalized, within MAX_PATH_BYTES, no NUL. */
export function validEntryPath(path: string): boolean {
  return isAbsolute(path) && resolve(path) === path && !path.includes("\0") && Buffer.byteLength(path) <= MAX_PATH_BYTES;
}

function parseStore(file: string, text: string): StoreContents {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${file} is not valid JSON` };
  }
  const folders = (doc as { folders?: unknown } | null)?.folders;
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || (doc as { v?: unknown }).v !== 1 || folders === null || typeof folders !== "object" || Array.isArray(folders))
    return { ok: false, problem: `${file} is not a trust store ({"v": 1, "folders": {…}})` };
  const entries = Object.entries(folders as Record<string, unknown>);
  if (entries.length > MAX_ENTRIES) return { ok: false, problem: `${file} has more than ${MAX_ENTRIES} entries` };
  const rules: TrustRule[] = [];
  for (const [path, level] of entries) {
    if (!validEntryPath(path)) return { ok: false, problem: `${file}: ${JSON.stringify(path.slice(0, 200))} is not a canonical absolute path` };
    if (!TRUST_LEVELS.includes(level as TrustLevel)) return { ok: false, problem: `${file}: the entry for ${path} must be one of ${TRUST_LEVELS.join(", ")}` };
    rules.push({ path, level: level as TrustLevel, origin: "file" });
  }
  return { ok: true, rules };
}

/** Replaces the store with `rules` (atomically, see the header); a TrustStoreError when it cannot. */
export function writeTrustStore(dataDir: string, rules: readonly TrustRule[]): void {
  if (rules.length > MAX_ENTRIES) throw new TrustStoreError("full", `the trust store holds at most ${MAX_ENTRIES} folders; revoke some first (svc trust --list)`);
  const folders = Object.fromEntries([...rules].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((rule) => [rule.path, rule.level]));
  const text = `${JSON.stringify({ v: 1, folders }, null, 2)}\n`;
  const temp = join(dataDir, `.${STORE_FILE}.${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex")}.tmp`);
  let fd: number | null = null;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, storePath(dataDir));
    syncDirectory(dataDir);
  } catch (err) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // never created, or already renamed
    }
    throw new TrustStoreError("unwritable", `cannot write ${storePath(dataDir)} (${errnoOf(err)})`);
  }
}

/** Makes the rename durable; a file system that cannot sync a directory keeps the rename all the same. */
function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // EINVAL on some file systems
  } finally {
    closeSync(fd);
  }
}

/** Applies `change` to the store's current entries and writes the result; a damaged store is refused, never overwritten. */
export function updateTrustStore(dataDir: string, change: (rules: readonly TrustRule[]) => readonly TrustRule[]): readonly TrustRule[] {
  const current = readTrustStore(dataDir);
  if (!current.ok) throw new TrustStoreError("damaged", `${current.problem}; fix or remove it (svc leaves a damaged trust store as it is)`);
  const next = change(current.rules);
  writeTrustStore(dataDir, next);
  return next;
}
