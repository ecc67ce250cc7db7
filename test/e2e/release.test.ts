/**
 * release/release.ts: the release directory's layout, checksums and signature, byte-for-byte
 * reproducibility, what it refuses, and one real build of this machine's target carrying the
 * signing key it was released with (the smoke test of a released binary: version, serve, /health).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { decodePublicKey, verifyMinisign } from "../../src/release/minisign.ts";
import { PROJECT_RELEASE_PUBLIC_KEY } from "../../src/release/public-key.ts";
import { REPO_ROOT, spawnDaemon } from "../helpers/daemon.ts";
import { makeRelease, makeSigningKey, RELEASE_TARGETS, readRelease, type ReleaseFiles, runRelease, standInBinary } from "../helpers/release-fixture.ts";
import { type TempDir, tempDir } from "../helpers/temp-dir.ts";

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

let dir: TempDir;
let keyPath: string;
let standIn: string;
let files: ReleaseFiles;
beforeAll(async () => {
  dir = tempDir();
  keyPath = await makeSigningKey(dir.path);
  standIn = await standInBinary(dir.path, "0.2.0-fake");
  await makeRelease(join(dir.path, "out"), standIn, keyPath);
  files = await readRelease(join(dir.path, "out"));
});
afterAll(() => dir?.[Symbol.asyncDispose]());

describe("npm run release", () => {
  test("lays out an archive and its .sha256 per target, install.sh, SHA256SUMS, its signature and the public key", () => {
    const archives = RELEASE_TARGETS.map((target) => `svc-${target}.tar.gz`);
    expect([...files.keys()]).toEqual(
      ["SHA256SUMS", "SHA256SUMS.minisig", "install.sh", "minisign.pub", ...archives.flatMap((name) => [name, `${name}.sha256`])].sort(),
    );
    const sums = text(files.get("SHA256SUMS"));
    expect(sums).toBe(
      ["install.sh", ...archives]
        .sort()
        .map((name) => `${sha256(files.get(name)!)}  ${name}\n`)
        .join(""),
    );
    for (const name of archives) expect(`${sha256(files.get(name)!)}  ${name}\n`).toBe(text(files.get(`${name}.sha256`)));
  });

  test("signs SHA256SUMS with the given key as `svc <version>`, which minisign checks too", async () => {
    const publicKey = text(files.get("minisign.pub")).split("\n")[1]!;
    expect(verifyMinisign(files.get("SHA256SUMS")!, text(files.get("SHA256SUMS.minisig")), decodePublicKey(publicKey))).toMatch(/^svc \d+\.\d+\.\d+/);
    expect(text(files.get("install.sh"))).toBe((await Bun.file(join(REPO_ROOT, "install.sh")).text()).replace(PROJECT_RELEASE_PUBLIC_KEY, publicKey));
    if (Bun.which("minisign") !== null) {
      const check = Bun.spawnSync(["minisign", "-V", "-m", "SHA256SUMS", "-p", "minisign.pub"], { cwd: join(dir.path, "out"), stdout: "pipe", stderr: "pipe" });
      expect(check.exitCode).toBe(0);
    }
  });

  test("each archive holds only `svc`, executable, with the source date and owner 0", async () => {
    await using unpacked = tempDir();
    const listing = Bun.spawnSync(["tar", "-tvzf", join(dir.path, "out", "svc-darwin-arm64.tar.gz")], { stdout: "pipe" }).stdout.toString();
    expect(listing).toMatch(/^-rwxr-xr-x 0\/0 +\d+ 2023-11-14 \d\d:\d\d svc\n$/);
    expect(Bun.spawnSync(["tar", "-xzf", join(dir.path, "out", "svc-linux-x64.tar.gz"), "-C", unpacked.path]).exitCode).toBe(0);
    expect(readdirSync(unpacked.path)).toEqual(["svc"]);
    expect(await Bun.file(join(unpacked.path, "svc")).text()).toBe(await Bun.file(standIn).text());
    expect(statSync(join(unpacked.path, "svc")).mtimeMs).toBe(1_700_000_000_000);
  });

  test("the same inputs give the same bytes", async () => {
    await makeRelease(join(dir.path, "again"), standIn, keyPath);
    const again = await readRelease(join(dir.path, "again"));
    expect([...again.keys()]).toEqual([...files.keys()]);
    for (const [name, bytes] of files) expect(sha256(again.get(name)!)).toBe(sha256(bytes));
  });

  test.each([
    ["a key other than the project's without --other-key", ["--signing-key", "{key}"], "is not the project's release key"],
    ["no signing key", [], "no signing key: pass --signing-key <file> or set SVC_RELEASE_SIGNING_KEY"],
    ["windows-x64", ["--targets", "windows-x64", "--unsigned"], "windows-x64 is not a release target: svc's process model"],
    ["an unknown target", ["--targets", "linux-mips", "--unsigned"], 'unknown target "linux-mips"'],
  ])("refuses %s (exit 2), writing nothing", async (_, args, message) => {
    const out = join(dir.path, "refused");
    // A stand-in for linux-x64, so that a release the script failed to refuse builds nothing.
    const standInArgs = args.includes("--targets") ? [] : ["--targets", "linux-x64", "--binary", `linux-x64=${standIn}`];
    const run = await runRelease(["--out", out, ...standInArgs, ...args.map((arg) => arg.replace("{key}", keyPath))]);
    expect(run.stderr).toContain(message);
    expect(run.exitCode).toBe(2);
    expect(() => statSync(out)).toThrow();
  });

  test("replaces an earlier release in --out, and refuses a directory holding anything else", async () => {
    const out = join(dir.path, "rerun");
    const args = ["--out", out, "--unsigned", "--targets", "linux-x64", "--binary", `linux-x64=${standIn}`];
    expect((await runRelease(args)).exitCode).toBe(0);
    expect((await runRelease(args)).exitCode).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["SHA256SUMS", "install.sh", "svc-linux-x64.tar.gz", "svc-linux-x64.tar.gz.sha256"]);
    await Bun.write(join(out, "notes.txt"), "mine");
    const refused = await runRelease(args);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("holds notes.txt, which a release does not write");
    expect(readdirSync(out)).toContain("notes.txt");
  });

  test("reads the signing key from SVC_RELEASE_SIGNING_KEY", async () => {
    const out = join(dir.path, "from-env");
    const run = await runRelease(["--out", out, "--other-key", "--targets", "linux-x64", "--binary", `linux-x64=${standIn}`], {
      SVC_RELEASE_SIGNING_KEY: await Bun.file(keyPath).text(),
      SOURCE_DATE_EPOCH: "1700000000",
    });
    expect(run.exitCode).toBe(0);
    const publicKey = decodePublicKey(text(files.get("minisign.pub")).split("\n")[1]!);
    expect(verifyMinisign(await Bun.file(join(out, "SHA256SUMS")).bytes(), await Bun.file(join(out, "SHA256SUMS.minisig")).text(), publicKey)).toStartWith("svc ");
    expect(await Bun.file(join(out, "minisign.pub")).text()).toBe(text(files.get("minisign.pub")));
  });

  // One real compile of this machine's target (seconds): the binary carries the key it was released with.
  test.skipIf(!["linux-x64", "linux-arm64"].includes(`${process.platform}-${process.arch}`))(
    "a built target's binary names the release key in --version --verbose, serves and answers /health",
    async () => {
      const target = `${process.platform}-${process.arch}`;
      const out = join(dir.path, "built");
      const run = await runRelease(["--out", out, "--signing-key", keyPath, "--other-key", "--targets", target]);
      expect(run.stderr).toBe("");
      expect(run.exitCode).toBe(0);
      const unpacked = join(dir.path, "built-svc");
      mkdirSync(unpacked);
      expect(Bun.spawnSync(["tar", "-xzf", join(out, `svc-${target}.tar.gz`), "-C", unpacked]).exitCode).toBe(0);
      const key = (await Bun.file(join(out, "minisign.pub")).text()).split("\n")[1]!;
      const printed = Bun.spawnSync([join(unpacked, "svc"), "--version", "--verbose"], { stdout: "pipe" }).stdout.toString();
      expect(printed).toMatch(new RegExp(`^\\d+\\.\\d+\\.\\d+\\+[0-9a-f]{12}\\nrelease key ${key.replace(/[+/]/g, "\\$&")}\\n$`));
      expect(key).not.toBe(PROJECT_RELEASE_PUBLIC_KEY);
      await using ws = tempDir("svc-ws-");
      await using daemon = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: [join(unpacked, "svc")], cwd: ws.path });
      const health = await daemon.fetch("/health");
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
    },
    180_000,
  );
});
