/**
 * Staging an update under the data dir: `<data dir>/update/staged/` holds the new `svc` (0755) and
 * `staged.json` (its version and sha256). `prepare` fetches the release's signed SHA256SUMS, then
 * this platform's archive (bounded in bytes), and checks the archive's sha256 against the signed
 * list, all in memory; only a verified archive is unpacked (bounded too), into a fresh folder
 * beside `staged/`, where the binary must answer `--version` with the signed version before the
 * folder is renamed to `staged/`. A refused release writes nothing, and a failure after the check
 * leaves no partial stage (the fresh folder is removed; an earlier stage stays as it was).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { download } from "./download.ts";
import { fetchSignedRelease } from "./release-check.ts";
import { archiveName, latestFileUrl } from "./release-location.ts";
import { tarEntry } from "./tar-entry.ts";
import { UpdateError } from "./update-error.ts";
import { compareVersions } from "./version-order.ts";

/** Release archives are ~40 MB (gzip of a ~110 MB binary); the bounds leave room to grow. */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;
const ARCHIVE_TIMEOUT_MS = 10 * 60_000;
/** How long the staged binary has to print its version. */
const VERSION_TIMEOUT_MS = 15_000;
const MAX_MANIFEST_BYTES = 16 * 1024;
/** What of the version output is read (a version is one short line). */
const MAX_VERSION_CHARS = 4096;

export interface StagedUpdate {
  readonly version: string;
  /** sha256 (hex) of the staged binary. */
  readonly sha256: string;
  readonly preparedAt: string;
  /** The staged binary's path. */
  readonly binary: string;
}

export const updateDir = (dataDir: string) => join(dataDir, "update");
const stagedDir = (dataDir: string) => join(updateDir(dataDir), "staged");
const MANIFEST = "staged.json";

export const sha256Hex = (data: Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** The staged update, or null when none is (or its manifest is unreadable). */
export function readStaged(dataDir: string): StagedUpdate | null {
  const dir = stagedDir(dataDir);
  try {
    if (statSync(join(dir, MANIFEST)).size > MAX_MANIFEST_BYTES) return null;
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Record<string, unknown>;
    if (typeof manifest.version !== "string" || typeof manifest.sha256 !== "string" || typeof manifest.preparedAt !== "string") return null;
    statSync(join(dir, "svc"));
    return { version: manifest.version, sha256: manifest.sha256, preparedAt: manifest.preparedAt, binary: join(dir, "svc") };
  } catch {
    return null;
  }
}

/** Removes the staged update (after it was applied). */
export function clearStaged(dataDir: string): void {
  rmSync(stagedDir(dataDir), { recursive: true, force: true });
}

export interface PrepareInput {
  readonly dataDir: string;
  readonly base: string;
  readonly publicKey: string;
  readonly currentVersion: string;
  /** Stage a release older than the running build (refused otherwise: a downgrade, or a replayed old release). */
  readonly allowDowngrade: boolean;
}

export interface Prepared {
  /** The newest release's version, from its signed SHA256SUMS. */
  readonly version: string;
  /** What is staged now (null when the newest release is the running version). */
  readonly staged: StagedUpdate | null;
}

/**
 * Stages the newest release. When it is the running version nothing is fetched past SHA256SUMS and
 * an earlier stage is cleared (it would be a downgrade); an older one is refused unless allowed.
 */
export async function prepare(input: PrepareInput): Promise<Prepared> {
  const release = await fetchSignedRelease(input.base, input.publicKey);
  const order = compareVersions(release.version, input.currentVersion);
  if (order === 0) {
    clearStaged(input.dataDir);
    return { version: release.version, staged: null };
  }
  if (order < 0 && !input.allowDowngrade) {
    throw new UpdateError("update_downgrade", `the release location offers svc ${release.version}, older than the running ${input.currentVersion}; pass allowDowngrade to install it anyway`, { latestVersion: release.version });
  }
  const binary = await fetchBinary(input.base, release.sums);
  return { version: release.version, staged: await stage(input.dataDir, release.version, binary) };
}

/** This platform's archive, checked against the signed sums, unpacked: the `svc` binary's bytes. */
export async function fetchBinary(base: string, sums: ReadonlyMap<string, string>): Promise<Uint8Array> {
  const name = archiveName();
  if (name === null) throw new UpdateError("release_unavailable", `svc publishes no build for ${process.platform}-${process.arch}`);
  const expected = sums.get(name);
  if (expected === undefined) throw new UpdateError("release_unverified", `the release's SHA256SUMS lists no ${name}`);
  const archive = await download(latestFileUrl(base, name), MAX_ARCHIVE_BYTES, ARCHIVE_TIMEOUT_MS);
  const actual = sha256Hex(archive);
  if (actual !== expected) throw new UpdateError("release_unverified", `${name} does not match the signed SHA256SUMS (sha256 ${actual}, signed ${expected})`);
  let tar: Uint8Array;
  try {
    tar = gunzipSync(archive, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch (err) {
    throw new UpdateError("release_unverified", `${name} does not unpack: ${(err as Error).message}`);
  }
  let binary: Uint8Array | null;
  try {
    binary = tarEntry(tar, "svc");
  } catch (err) {
    throw new UpdateError("release_unverified", `${name} is not a readable tar archive: ${(err as Error).message}`);
  }
  if (binary === null || binary.length === 0) throw new UpdateError("release_unverified", `${name} holds no svc binary`);
  return binary;
}

/** Writes the verified binary into a fresh folder, proves it runs, and makes it the staged update. */
async function stage(dataDir: string, version: string, binary: Uint8Array): Promise<StagedUpdate> {
  mkdirSync(updateDir(dataDir), { recursive: true, mode: 0o700 });
  const fresh = mkdtempSync(join(updateDir(dataDir), ".prepare-"));
  try {
    const path = join(fresh, "svc");
    writeFileSync(path, binary, { mode: 0o700 });
    chmodSync(path, 0o755);
    const printed = await versionOf(path);
    if (printed !== version) throw new UpdateError("release_unverified", `the release's binary says it is ${JSON.stringify(printed)}, not the signed version ${version}`);
    const staged = { version, sha256: sha256Hex(binary), preparedAt: new Date().toISOString() };
    writeFileSync(join(fresh, MANIFEST), `${JSON.stringify(staged)}\n`, { mode: 0o600 });
    clearStaged(dataDir);
    renameSync(fresh, stagedDir(dataDir));
    return { ...staged, binary: join(stagedDir(dataDir), "svc") };
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

/** The first line `<binary> --version` prints (empty when it fails or overruns). */
export async function versionOf(path: string): Promise<string> {
  try {
    const proc = Bun.spawn([path, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "ignore", env: {}, timeout: VERSION_TIMEOUT_MS });
    let out = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      out += decoder.decode(chunk, { stream: true });
      if (out.length > MAX_VERSION_CHARS) break;
    }
    proc.kill();
    await proc.exited;
    return (out.split("\n")[0] ?? "").trim();
  } catch {
    return "";
  }
}
