/**
 * Installs an extension from a local folder: a copy, never a link into the source, under
 * `<data dir>/extensions/<name>/` (the manifest's name), with svc's record (`extension-store.ts`).
 * Nothing in it runs: no install script, no package manager; files are copied as bytes, their
 * mode kept without set-id bits. Bounded: at most MAX_FILES entries and MAX_TOTAL_BYTES in all,
 * MAX_DEPTH folders deep; links, devices and sockets in the source are skipped (counted in the
 * answer), and `.git` is not copied. The copy is made in a staging folder beside the others and
 * renamed into place, so a failed install leaves nothing and a reinstall swaps the whole folder.
 *
 * A scoped npm package (`@scope/name[@version]`) is fetched, checked against the registry's
 * integrity and unpacked by `registry-install.ts`, then installed from its download folder here.
 * Any other remote source (a URL, a git repository) is refused: nothing could vouch for it.
 */
import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, opendir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { DaemonError } from "../errors/daemon-error.ts";
import { MANIFEST_FILE, MAX_MANIFEST_BYTES, ManifestError, parseManifest } from "./extension-manifest.ts";
import { extensionsDir, RECORD_FILE, type ExtensionRecord, type ExtensionSource } from "./extension-store.ts";

export const MAX_FILES = 2000;
export const MAX_TOTAL_BYTES = 50 * 1024 * 1024;
export const MAX_DEPTH = 16;
const SKIPPED_FOLDERS = new Set([".git"]);

const badSource = (message: string, fields: Record<string, unknown> = {}) => new DaemonError(400, "invalid_extension_source", message, fields);

/** A scoped npm package source (`registry-install.ts` installs it). */
export const isRegistrySource = (source: string) => /^@[^/\s]+\/[^/\s]+$/.test(source);

/** Checks a source as the route receives it: an absolute local folder path or a scoped npm package (400 otherwise; 422 for another remote source). */
export function checkSource(source: string): void {
  if (isRegistrySource(source)) return;
  if (/^[a-z][a-z0-9+.-]*:/i.test(source) || /^[^/\s]+\/[^/\s]+/.test(source))
    throw new DaemonError(422, "extension_source_unsupported", "Only a local folder or a scoped npm package (@scope/name) can be installed: a URL or git source has no integrity svc could check", {
      hint: "clone or unpack it, then install the folder by its absolute path",
    });
  if (!isAbsolute(source)) throw badSource("`source` must be the absolute path of a local folder");
}

interface CopyState {
  files: number;
  bytes: number;
  skipped: number;
}

/**
 * Copies regular file `src` opened without following a link (one swapped in since the folder was
 * listed is not read), counting its bytes against MAX_TOTAL_BYTES; false when it is no longer a
 * regular file.
 */
async function copyRegular(src: string, dst: string, state: CopyState): Promise<boolean> {
  const handle = await open(src, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return false;
  try {
    const st = await handle.stat();
    if (!st.isFile()) return false;
    state.bytes += st.size;
    if (state.bytes > MAX_TOTAL_BYTES) throw badSource(`the extension is larger than ${MAX_TOTAL_BYTES} bytes`);
    const data = await handle.readFile();
    if (data.length > st.size) throw badSource("a file of the extension grew while it was copied");
    await writeFile(dst, data, { flag: "wx" });
    await chmod(dst, st.mode & 0o755);
    return true;
  } finally {
    await handle.close();
  }
}

async function copyTree(from: string, to: string, depth: number, state: CopyState): Promise<void> {
  if (depth > MAX_DEPTH) throw badSource(`the extension is more than ${MAX_DEPTH} folders deep`);
  await mkdir(to, { mode: 0o755 });
  const dir = await opendir(from);
  for await (const entry of dir) {
    const src = join(from, entry.name);
    const dst = join(to, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      if (++state.files > MAX_FILES) throw badSource(`the extension has more than ${MAX_FILES} files and folders`);
      await copyTree(src, dst, depth + 1, state);
    } else if (entry.isFile()) {
      if (++state.files > MAX_FILES) throw badSource(`the extension has more than ${MAX_FILES} files and folders`);
      if (!(await copyRegular(src, dst, state))) state.skipped++;
    } else state.skipped++;
  }
}

export interface InstallResult {
  readonly name: string;
  readonly version: string;
  readonly files: number;
  readonly bytes: number;
  /** Links and special files of the source that were not copied. */
  readonly skipped: number;
}

/** Installs (or reinstalls) the extension in folder `source` (absolute) for the user; `origin` is what its record names (the folder itself by default). */
export async function installFromFolder(dataDir: string, source: string, origin: ExtensionSource = { type: "local", path: source }): Promise<InstallResult> {
  if (!isAbsolute(source)) throw badSource("`source` must be the absolute path of a local folder");
  const st = await lstat(source).catch(() => null);
  if (!st?.isDirectory()) throw badSource("`source` is not a folder (a link to one is not followed)", { source });
  const manifestPath = join(source, MANIFEST_FILE);
  const mst = await lstat(manifestPath).catch(() => null);
  if (!mst?.isFile()) throw badSource(`the folder has no ${MANIFEST_FILE}`, { source });
  if (mst.size > MAX_MANIFEST_BYTES) throw badSource(`${MANIFEST_FILE} is larger than ${MAX_MANIFEST_BYTES} bytes`);
  const base = extensionsDir(dataDir);
  let name: string;
  let version: string;
  try {
    ({ name, version } = parseManifest(await readFile(manifestPath, "utf8"), join(base, "x")));
  } catch (err) {
    if (err instanceof ManifestError) throw badSource(`invalid ${MANIFEST_FILE}: ${err.message}`);
    throw err;
  }
  await mkdir(base, { recursive: true, mode: 0o700 });
  // A source holding the extensions folder would copy its own copy; one inside it is an installed extension.
  const [realSource, realBase] = await Promise.all([realpath(source), realpath(base)]);
  const between = relative(realSource, realBase);
  if (between === "" || !between.startsWith("..") || realSource.startsWith(realBase + sep))
    throw badSource("`source` may not hold svc's extensions folder nor lie inside it");
  const staging = join(base, `.staging-${randomUUID()}`);
  const state: CopyState = { files: 0, bytes: 0, skipped: 0 };
  const target = join(base, name);
  const old = join(base, `.old-${randomUUID()}`);
  try {
    await copyTree(source, staging, 0, state);
    const record: ExtensionRecord = { v: 1, source: origin, installedAt: new Date().toISOString(), enabled: true };
    await writeFile(join(staging, RECORD_FILE), JSON.stringify(record, null, 2) + "\n", { mode: 0o600 });
    const had = await rename(target, old).then(() => true, (err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? false : Promise.reject(err)));
    await rename(staging, target);
    if (had) await rm(old, { recursive: true, force: true });
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  return { name, version, files: state.files, bytes: state.bytes, skipped: state.skipped };
}

/** Sets an installed extension's `enabled` (its record rewritten atomically); false when it was already so. */
export async function setEnabled(path: string, record: ExtensionRecord, enabled: boolean): Promise<boolean> {
  if (record.enabled === enabled) return false;
  const tmp = join(path, `${RECORD_FILE}.${randomUUID()}.tmp`);
  await writeFile(tmp, JSON.stringify({ ...record, enabled }, null, 2) + "\n", { mode: 0o600 });
  await rename(tmp, join(path, RECORD_FILE));
  return true;
}

/** Removes an installed extension: renamed aside first (gone at once for readers), then deleted. */
export async function removeExtension(dataDir: string, name: string): Promise<void> {
  const aside = join(extensionsDir(dataDir), `.old-${randomUUID()}`);
  await rename(join(extensionsDir(dataDir), name), aside);
  await rm(aside, { recursive: true, force: true });
}
