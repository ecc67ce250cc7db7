/**
 * `npm run release`: builds svc for every release target and lays out a signed release directory.
 *
 *   bun release/release.ts [--out dist/release] [--targets linux-x64,linux-arm64,darwin-x64,darwin-arm64]
 *                          [--signing-key <file>] [--other-key] [--unsigned] [--check-reproducible]
 *                          [--binary <target>=<file>]...
 *
 * Each target is compiled by build.ts with Bun's `--target bun-<os>-<arch>` (Bun fetches that
 * target's runtime from the npm registry once and caches it; a target it cannot fetch fails the
 * release, saying so, and nothing is signed); this machine's target is run once (`--version
 * --verbose` must name the release key). The output directory (new, or holding only an earlier
 * release, which is replaced) then holds:
 *   svc-<os>-<arch>.tar.gz (+ .sha256)   the binary `svc` (0755), in a reproducible tar, gzip -6
 *   install.sh                           the installer, carrying the signing key's public half
 *   SHA256SUMS                           sha256sum lines for the archives and install.sh
 *   SHA256SUMS.minisig                   its minisign signature, trusted comment `svc <version>`
 *   minisign.pub                         the public key (`minisign -Vm SHA256SUMS -p minisign.pub`)
 * The same commit gives the same bytes: builds are deterministic, archives carry the commit's time
 * and fixed owners, gzip writes no name or time, and Ed25519 signatures are deterministic.
 * `--check-reproducible` builds the first target a second time and fails unless its archive is
 * identical. Why gzip: docs/release.md (the measurement of gzip, xz and zstd).
 *
 * The signing key (an Ed25519 PKCS#8 PEM, `openssl genpkey -algorithm ed25519`) is read from
 * `--signing-key <file>` or the environment variable SVC_RELEASE_SIGNING_KEY (the PEM text), never
 * from the repository. A key other than the project's (src/release/public-key.ts) is refused unless
 * `--other-key` is given; its public half is then stamped into the binaries and install.sh.
 * `--unsigned` lays out everything but the signature (CI's build check). `--binary <target>=<file>`
 * packages a file instead of building that target (tests use small stand-ins).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { encodePublicKey, publicKeyFile, publicKeyOf, readSigningKey, signMinisign } from "../src/release/minisign.ts";
import { PROJECT_RELEASE_PUBLIC_KEY } from "../src/release/public-key.ts";
import { tarArchive } from "./tar.ts";

const ROOT = resolve(import.meta.dir, "..");
const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"] as const;
type Target = (typeof TARGETS)[number];
const NOT_BUILT: Record<string, string> = {
  "windows-x64": "svc's process model (agents stopped through their process groups, POSIX signals, a /bin/sh watcher) has no Windows equivalent yet (docs/release.md)",
};
/** Level 9 makes the archive 0.3% smaller for twice the time (docs/release.md). */
const GZIP_LEVEL = 6;
const USAGE =
  "usage: bun release/release.ts [--out <dir>] [--targets <t,...>] [--signing-key <file> | --unsigned] [--other-key] [--check-reproducible] [--binary <target>=<file>]...";

function fail(message: string, code = 1): never {
  console.error(`release: ${message}`);
  process.exit(code);
}

function readArgs() {
  try {
    return parseArgs({
      args: Bun.argv.slice(2),
      options: {
        out: { type: "string", default: "dist/release" },
        targets: { type: "string", default: TARGETS.join(",") },
        "signing-key": { type: "string" },
        "other-key": { type: "boolean", default: false },
        unsigned: { type: "boolean", default: false },
        "check-reproducible": { type: "boolean", default: false },
        binary: { type: "string", multiple: true, default: [] },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
}

const options = readArgs();
const targets = options.targets.split(",").map((name) => {
  if (name in NOT_BUILT) fail(`${name} is not a release target: ${NOT_BUILT[name]}`, 2);
  if (!(TARGETS as readonly string[]).includes(name)) fail(`unknown target ${JSON.stringify(name)}; targets: ${TARGETS.join(", ")}`, 2);
  return name as Target;
});
const prebuilt = new Map<string, string>();
for (const spec of options.binary) {
  const [target, file] = spec.split(/=(.*)/s);
  if (!targets.includes(target as Target) || !file) fail(`--binary ${spec}: expected <target>=<file> for one of ${targets.join(", ")}`, 2);
  prebuilt.set(target!, resolve(file));
}

function signingKeyPem(): string {
  if (options["signing-key"] !== undefined) return readFileText(options["signing-key"]);
  const fromEnv = process.env.SVC_RELEASE_SIGNING_KEY;
  if (fromEnv) return fromEnv;
  fail("no signing key: pass --signing-key <file> or set SVC_RELEASE_SIGNING_KEY (or --unsigned for an unsigned layout)", 2);
}

function readFileText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    fail(`cannot read ${path}: ${(err as Error).message}`, 2);
  }
}

if (options.unsigned && options["signing-key"] !== undefined) fail("--unsigned and --signing-key exclude each other", 2);
const signingKey = options.unsigned ? null : readSigningKey(signingKeyPem());
const publicKey = signingKey === null ? PROJECT_RELEASE_PUBLIC_KEY : encodePublicKey(publicKeyOf(signingKey));
if (publicKey !== PROJECT_RELEASE_PUBLIC_KEY && !options["other-key"]) {
  fail(`the signing key's public half ${publicKey} is not the project's release key ${PROJECT_RELEASE_PUBLIC_KEY} (src/release/public-key.ts); pass --other-key to sign with it anyway`, 2);
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** The commit's time (seconds), the archives' mtime; SOURCE_DATE_EPOCH wins, 0 outside git. */
function sourceDateEpoch(): number {
  const fromEnv = process.env.SOURCE_DATE_EPOCH;
  if (fromEnv !== undefined && /^\d+$/.test(fromEnv)) return Number(fromEnv);
  const git = Bun.spawnSync(["git", "log", "-1", "--format=%ct"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const time = git.stdout.toString().trim();
  return git.exitCode === 0 && /^\d+$/.test(time) ? Number(time) : 0;
}

/** Compiles one target with build.ts; answers the stamped version. */
async function build(target: Target, outfile: string): Promise<string> {
  const args = [process.execPath, join(ROOT, "build.ts"), "--outfile", outfile, "--target", `bun-${target}`];
  if (publicKey !== PROJECT_RELEASE_PUBLIC_KEY) args.push("--release-key", publicKey);
  const proc = Bun.spawn(args, { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (exitCode !== 0) {
    const output = `${stdout}${stderr}`.trim();
    const unfetched = /Failed to download '([^']+)'/.exec(output);
    if (unfetched) throw new Error(`Bun could not fetch the runtime ${unfetched[1]} from the npm registry (offline, or the registry unreachable from here):\n${output}`);
    throw new Error(`build.ts --target bun-${target} exited ${exitCode}:\n${output}`);
  }
  const version = /\(svc ([^,)]+)/.exec(stdout)?.[1];
  if (version === undefined) throw new Error(`build.ts printed no version:\n${stdout}`);
  return version;
}

/** This machine's target, whose binary is run once after its build. */
function hostTarget(): string {
  return `${process.platform}-${process.arch}`;
}

/** The bytes of svc-<target>.tar.gz holding one binary. */
async function archive(binary: string, mtime: number): Promise<Uint8Array> {
  const tar = tarArchive([{ name: "svc", mode: 0o755, data: await Bun.file(binary).bytes() }], mtime);
  return Bun.gzipSync(tar, { level: GZIP_LEVEL });
}

/** A reason the release stops; the scratch dir is removed before it is printed. */
class ReleaseError extends Error {}

async function release(out: string, scratch: string): Promise<void> {
  const mtime = sourceDateEpoch();
  const versions = new Set<string>();
  const failures: string[] = [];
  const sums: string[] = [];
  for (const target of targets) {
    const binary = prebuilt.get(target) ?? join(scratch, target, "svc");
    if (!prebuilt.has(target)) {
      try {
        versions.add(await build(target, binary));
      } catch (err) {
        failures.push(`${target}: ${(err as Error).message}`);
        continue;
      }
      if (target === hostTarget()) {
        const printed = Bun.spawnSync([binary, "--version", "--verbose"], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
        if (!printed.includes(`release key ${publicKey}`)) failures.push(`${target}: the built binary's --version --verbose does not name the release key:\n${printed}`);
      }
    }
    const name = `svc-${target}.tar.gz`;
    const bytes = await archive(binary, mtime);
    await Bun.write(join(out, name), bytes);
    const line = `${sha256(bytes)}  ${name}\n`;
    await Bun.write(join(out, `${name}.sha256`), line);
    sums.push(line);
    console.log(`${name}  ${(bytes.length / 1e6).toFixed(1)} MB (binary ${(Bun.file(binary).size / 1e6).toFixed(1)} MB)`);
  }
  if (failures.length > 0) throw new ReleaseError(`not released (nothing signed):\n${failures.join("\n")}`);
  if (versions.size > 1) throw new ReleaseError(`the targets were stamped with different versions: ${[...versions].join(", ")}`);
  const version = [...versions][0] ?? (await import("../src/version.ts")).VERSION;

  const installer = (await Bun.file(join(ROOT, "install.sh")).text()).replace(/^RELEASE_PUBLIC_KEY=".*"$/m, `RELEASE_PUBLIC_KEY="${publicKey}"`);
  if (!installer.includes(`RELEASE_PUBLIC_KEY="${publicKey}"`)) throw new ReleaseError("install.sh has no RELEASE_PUBLIC_KEY line to stamp");
  await Bun.write(join(out, "install.sh"), installer);
  sums.push(`${sha256(new TextEncoder().encode(installer))}  install.sh\n`);
  const sumsText = sums.sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join("");
  await Bun.write(join(out, "SHA256SUMS"), sumsText);

  if (signingKey !== null) {
    await Bun.write(join(out, "SHA256SUMS.minisig"), signMinisign(new TextEncoder().encode(sumsText), signingKey, `svc ${version}`));
    await Bun.write(join(out, "minisign.pub"), publicKeyFile(publicKeyOf(signingKey)));
    console.log(`signed SHA256SUMS for svc ${version} with ${publicKey}`);
  } else {
    console.log(`svc ${version}: unsigned (--unsigned)`);
  }

  if (options["check-reproducible"]) {
    const [first] = targets;
    if (first === undefined || prebuilt.has(first)) throw new ReleaseError("--check-reproducible needs a target that is built, not given with --binary");
    const again = join(scratch, "again", "svc");
    await build(first, again);
    const name = `svc-${first}.tar.gz`;
    const [a, b] = [sha256(await Bun.file(join(out, name)).bytes()), sha256(await archive(again, mtime))];
    if (a !== b) throw new ReleaseError(`not reproducible: ${name} built twice gave ${a} and ${b}`);
    console.log(`reproducible: ${name} built twice, both ${a}`);
  }
  console.log(`release in ${out}`);
}

/** The release files a previous run left in `out`; anything else there stops the release. */
const RELEASE_FILE = /^(svc-[a-z0-9]+-[a-z0-9]+\.tar\.gz(\.sha256)?|install\.sh|SHA256SUMS(\.minisig)?|minisign\.pub)$/;

/** Creates `out`, or empties it of an earlier release; never deletes what a release does not write. */
function prepareOut(out: string): void {
  mkdirSync(out, { recursive: true });
  const foreign = readdirSync(out).filter((name) => !RELEASE_FILE.test(name));
  if (foreign.length > 0) fail(`--out ${out} holds ${foreign.slice(0, 3).join(", ")}, which a release does not write: choose an empty or new directory`, 2);
  for (const name of readdirSync(out)) rmSync(join(out, name));
}

const out = resolve(options.out);
prepareOut(out);
const scratch = mkdtempSync(join(tmpdir(), "svc-release-"));
try {
  await release(out, scratch);
} catch (err) {
  if (!(err instanceof ReleaseError)) throw err;
  rmSync(scratch, { recursive: true, force: true });
  fail(err.message);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
