/**
 * Releases for the update tests, in the layout `release/release.ts` publishes (this platform's
 * `svc-<os>-<arch>.tar.gz`, `SHA256SUMS`, `SHA256SUMS.minisig` with trusted comment `svc <version>`),
 * made with the release code itself (`release/tar.ts`, `src/release/minisign.ts`) but for one
 * platform, a version given, and gzip level 1: a ~110 MB test build is packed in a second or two.
 * `buildSvc` compiles the real binary with a release key and version stamped (build.ts).
 */
import { join } from "node:path";
import { tarArchive } from "../../release/tar.ts";
import { encodePublicKey, publicKeyOf, readSigningKey, signMinisign } from "../../src/release/minisign.ts";
import { archiveName } from "../../src/update/release-location.ts";
import { REPO_ROOT } from "./daemon.ts";
import type { ReleaseFiles } from "./release-fixture.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const sha256 = (data: Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** The minisign public key (as `build.ts --release-key` takes it) of the PEM key at `keyPath`. */
export async function publicKeyOfFile(keyPath: string): Promise<string> {
  return encodePublicKey(publicKeyOf(readSigningKey(await Bun.file(keyPath).text())));
}

/** Compiles svc into `outfile` trusting `releaseKey` and stamped `version`. */
export async function buildSvc(outfile: string, releaseKey: string, version: string): Promise<void> {
  const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "build.ts"), "--outfile", outfile, "--release-key", releaseKey, "--version", version], {
    cwd: join(outfile, ".."),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (exitCode !== 0) throw new Error(`build.ts exited ${exitCode}:\n${stdout}${stderr}`);
}

/** This platform's archive name (the tests run where svc publishes builds). */
export function platformArchive(): string {
  const name = archiveName();
  if (name === null) throw new Error(`svc publishes no build for ${process.platform}-${process.arch}`);
  return name;
}

/** A release of `binary` as `version`, its SHA256SUMS signed with the key at `keyPath`. */
export async function signedRelease(binary: string, version: string, keyPath: string): Promise<ReleaseFiles> {
  const archive = Bun.gzipSync(tarArchive([{ name: "svc", mode: 0o755, data: await Bun.file(binary).bytes() }], 1_700_000_000), { level: 1 });
  return signFiles(new Map([[platformArchive(), archive]]), version, keyPath);
}

/** `files` with a SHA256SUMS over them, signed for `version` with the key at `keyPath`. */
export async function signFiles(files: ReleaseFiles, version: string, keyPath: string): Promise<ReleaseFiles> {
  const sums = [...files].map(([name, data]) => `${sha256(data)}  ${name}\n`).join("");
  const signature = signMinisign(encode(sums), readSigningKey(await Bun.file(keyPath).text()), `svc ${version}`);
  return new Map([...files, ["SHA256SUMS", encode(sums)], ["SHA256SUMS.minisig", encode(signature)]]);
}
