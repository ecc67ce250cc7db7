/**
 * Installs an extension published to an npm registry: `@scope/name`, `@scope/name@<version>` or
 * `@scope/name@<dist-tag>` (the reference's scoped-package sources), from the registry svc is
 * configured with (`SVC_NPM_REGISTRY`, else npm's; no `.npmrc` is read, so a workspace cannot
 * redirect it).
 *
 * 1. The package's metadata (at most MAX_METADATA_BYTES) names the version: the exact one asked,
 *    the dist-tag's, else `latest`.
 * 2. Its tarball (at most MAX_TARBALL_BYTES) must match the version's `dist.integrity` (sha512): a
 *    version without one is refused (422 `extension_integrity_missing`), a mismatch too (422
 *    `extension_integrity_mismatch`), and nothing is written.
 * 3. It is unpacked in memory (gunzip bounded by MAX_TOTAL_BYTES; `Bun.Archive` yields regular
 *    files only, so no link, device or set-id file is ever made) into a private download folder:
 *    every path must lie under the tarball's `package/` folder without `..`, at most MAX_FILES
 *    files, MAX_DEPTH deep, and no file is executable.
 * 4. That folder is installed as a local folder is (`installFromFolder`: the same manifest checks
 *    and bounds), its record naming the package, version and integrity; the download is removed.
 *
 * Nothing in it runs: no install script, no package manager.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DaemonError } from "../errors/daemon-error.ts";
import { installFromFolder, MAX_DEPTH, MAX_FILES, MAX_TOTAL_BYTES, type InstallResult } from "./extension-install.ts";
import { DOWNLOADS_FOLDER } from "./install-leftovers.ts";

/** The reference's scoped-package source, with an optional version or dist-tag. */
export const NPM_SOURCE = /^(@[a-z0-9][a-z0-9._-]{0,100}\/[a-z0-9][a-z0-9._-]{0,100})(?:@([A-Za-z0-9][A-Za-z0-9.+_-]{0,100}))?$/;
export const MAX_METADATA_BYTES = 16 * 1024 * 1024;
export const MAX_TARBALL_BYTES = 50 * 1024 * 1024;
/** How long the metadata and the tarball each may take. */
const FETCH_TIMEOUT_MS = 120_000;
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;

const refused = (status: number, code: string, message: string, fields: Record<string, unknown> = {}) => new DaemonError(status, code, message, fields);

/** The body of `url` as bytes, at most `max` of them (a longer one is refused without being read further). */
async function fetchBounded(url: string, max: number, what: string, accept: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept }, redirect: "follow", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw refused(502, "extension_registry_unavailable", `The registry could not be reached for the ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (response.status === 404) throw refused(404, "extension_package_not_found", `The registry has no ${what} (404)`);
  if (!response.ok || response.body === null) throw refused(502, "extension_registry_unavailable", `The registry answered ${response.status} for the ${what}`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > max) {
        await response.body.cancel().catch(() => {});
        throw refused(422, "extension_too_large", `The ${what} is larger than ${max} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    // The body stopped (the registry went away, or it was slower than FETCH_TIMEOUT_MS in all).
    throw refused(502, "extension_registry_unavailable", `The registry's ${what} did not arrive: ${err instanceof Error ? err.message : String(err)}`);
  }
  return Buffer.concat(chunks);
}

interface Resolved {
  readonly name: string;
  readonly version: string;
  readonly tarball: string;
  /** The sha512 hashes of its integrity (any one matching is enough, as npm checks it). */
  readonly integrity: readonly string[];
}

/** The version `wanted` (exact or a dist-tag; `latest` when absent) of package `name` in its metadata. */
async function resolve(registry: string, name: string, wanted: string | undefined): Promise<Resolved> {
  const url = new URL(name.replace("/", "%2f"), registry.endsWith("/") ? registry : `${registry}/`).href;
  let doc: { "dist-tags"?: Record<string, unknown>; versions?: Record<string, { dist?: { tarball?: unknown; integrity?: unknown } }> };
  try {
    doc = JSON.parse(new TextDecoder().decode(await fetchBounded(url, MAX_METADATA_BYTES, `metadata of ${name}`, "application/vnd.npm.install-v1+json, application/json")));
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    throw refused(502, "extension_registry_unavailable", `The registry's metadata of ${name} is not JSON`);
  }
  const tag = wanted === undefined || !EXACT_VERSION.test(wanted) ? (wanted ?? "latest") : null;
  const version = tag === null ? wanted! : doc["dist-tags"]?.[tag];
  if (typeof version !== "string") throw refused(404, "extension_package_not_found", `${name} has no version tagged ${JSON.stringify(tag)}`);
  const dist = doc.versions?.[version]?.dist;
  if (!dist) throw refused(404, "extension_package_not_found", `${name} has no version ${version}`);
  if (typeof dist.tarball !== "string" || !/^https?:\/\//.test(dist.tarball)) throw refused(502, "extension_registry_unavailable", `${name}@${version} names no http(s) tarball`);
  // An SRI string may name several hashes; the sha512 ones are what the download is checked against.
  const sha512 = typeof dist.integrity === "string" ? dist.integrity.split(/\s+/).filter((h) => /^sha512-[A-Za-z0-9+/]+={0,2}$/.test(h)) : [];
  if (sha512.length === 0) throw refused(422, "extension_integrity_missing", `${name}@${version} carries no sha512 integrity the download could be checked against`);
  return { name, version, tarball: dist.tarball, integrity: sha512 };
}

/** The tarball's regular files written under `into`, paths stripped of `package/` and checked. */
async function unpack(tgz: Uint8Array, into: string): Promise<void> {
  let tar: Buffer;
  try {
    tar = gunzipSync(tgz, { maxOutputLength: MAX_TOTAL_BYTES + MAX_FILES * 1024 });
  } catch {
    throw refused(422, "extension_archive_invalid", `The tarball is not gzip, or unpacks to more than ${MAX_TOTAL_BYTES} bytes`);
  }
  const files = await new Bun.Archive(tar).files();
  if (files.size > MAX_FILES) throw refused(422, "extension_archive_invalid", `The tarball has more than ${MAX_FILES} files`);
  for (const [path, file] of files) {
    const parts = path.split("/");
    if (parts[0] !== "package" || parts.length < 2 || parts.length - 1 > MAX_DEPTH || parts.some((p, i) => i > 0 && (p === "" || p === "." || p === "..")))
      throw refused(422, "extension_archive_invalid", `The tarball holds a path outside its package folder: ${JSON.stringify(path.slice(0, 200))}`);
    const target = join(into, ...parts.slice(1));
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await writeFile(target, new Uint8Array(await file.arrayBuffer()), { flag: "wx", mode: 0o644 });
  }
}

/** Installs package `source` (NPM_SOURCE) from `registry`; the answer names its version. */
export async function installFromRegistry(dataDir: string, registry: string, source: string): Promise<InstallResult & { source: string; integrity: string }> {
  const match = NPM_SOURCE.exec(source);
  if (!match) throw refused(400, "invalid_extension_source", "A registry source is @scope/name, optionally @version or @tag");
  const pkg = await resolve(registry, match[1]!, match[2]);
  const tgz = await fetchBounded(pkg.tarball, MAX_TARBALL_BYTES, `tarball of ${pkg.name}@${pkg.version}`, "application/octet-stream");
  const digest = `sha512-${createHash("sha512").update(tgz).digest("base64")}`;
  if (!pkg.integrity.includes(digest)) throw refused(422, "extension_integrity_mismatch", `The tarball of ${pkg.name}@${pkg.version} does not match the registry's integrity`);
  const download = join(dataDir, DOWNLOADS_FOLDER, randomUUID());
  await mkdir(download, { recursive: true, mode: 0o700 });
  try {
    await unpack(tgz, download).catch((err: unknown) => {
      if (err instanceof DaemonError) throw err;
      // What the archive holds that cannot be written (a file and a folder of one name, an entry the
      // reader cannot read): said without the download folder's path.
      const message = (err instanceof Error ? err.message : String(err)).replaceAll(download, "<package>");
      throw refused(422, "extension_archive_invalid", `The tarball cannot be unpacked: ${message.slice(0, 300)}`);
    });
    const installed = `${pkg.name}@${pkg.version}`;
    const result = await installFromFolder(dataDir, download, { type: "npm", path: installed, integrity: digest });
    return { ...result, source: installed, integrity: digest };
  } finally {
    await rm(download, { recursive: true, force: true });
  }
}
