/**
 * install.sh: local installs of a real compiled binary, and `curl … | sh` installs from a loopback
 * release host serving releases made by release/release.ts with a throwaway key (signature and
 * checksum checks with OpenSSL and minisign, refusals that leave the install dir as it was, upgrades,
 * platform → archive names), PATH edits and atomic replacement.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { makeRelease, makeSigningKey, readRelease, type ReleaseFiles, releaseHost, standInBinary } from "../helpers/release-fixture.ts";
import { type TempDir, tempDir } from "../helpers/temp-dir.ts";
import { PROJECT_RELEASE_PUBLIC_KEY } from "../../src/release/public-key.ts";

const INSTALL_SH = join(REPO_ROOT, "install.sh");
const SH = Bun.which("sh")!;
const BASH = Bun.which("bash")!;
/** A tiny stand-in for a release binary: quick to serve, and it answers --version. */
const FAKE_SVC = "#!/bin/sh\necho 0.2.0-fake\n";

let binary: BuiltBinary;
let binaryVersion: string;
/** FAKE_SVC as a local file, for tests about where things go rather than what gets installed. */
let fakeBinary: string;
beforeAll(async () => {
  binary = await buildBinary();
  binaryVersion = Bun.spawnSync([binary.path, "--version"]).stdout.toString().trim();
  fakeBinary = join(dirname(binary.path), "fake-svc");
  await Bun.write(fakeBinary, FAKE_SVC);
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]());

interface InstallRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs install.sh with only the environment given here (plus PATH), never the developer's. */
async function install(args: string[], env: Record<string, string>, script = INSTALL_SH): Promise<InstallRun> {
  const proc = Bun.spawn([SH, script, ...args], {
    env: { PATH: process.env.PATH!, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exitCode };
}

function versionOf(path: string): string {
  return Bun.spawnSync([path, "--version"]).stdout.toString().trim();
}

describe("install.sh --binary", () => {
  test("installs a local build that runs, and leaves nothing else behind", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    const run = await install(["--binary", binary.path, "--install-dir", dir.path, "--no-modify-path"], { HOME: home.path, SHELL: "/bin/bash" });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(readdirSync(dir.path)).toEqual(["svc"]);
    expect(statSync(join(dir.path, "svc")).mode & 0o111).toBe(0o111);
    expect(versionOf(join(dir.path, "svc"))).toBe(binaryVersion);
    expect(run.stdout).toContain(binaryVersion);
  });

  test("refuses a missing file", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    const run = await install(["--binary", join(dir.path, "nope"), "--install-dir", dir.path], { HOME: home.path });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("no such file");
    expect(readdirSync(dir.path)).toEqual([]);
  });

  test("replaces an existing binary by rename, never rewriting it in place", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    const target = join(dir.path, "svc");
    const old = "#!/bin/sh\necho old\n";
    await Bun.write(target, old);
    chmodSync(target, 0o755);
    const oldInode = statSync(target).ino;
    const oldLink = join(home.path, "old-svc");
    linkSync(target, oldLink); // a second name for the old file, to see whether its bytes were touched

    const proc = Bun.spawn([SH, INSTALL_SH, "--binary", binary.path, "--install-dir", dir.path, "--no-modify-path"], {
      env: { PATH: process.env.PATH!, HOME: home.path },
      stdout: "ignore",
      stderr: "pipe",
    });
    // While it runs, the path only ever shows the old file or the complete new one.
    const seen = new Set<number>();
    while (proc.exitCode === null) {
      seen.add(statSync(target).size);
      await Bun.sleep(1);
    }
    expect(await proc.exited).toBe(0);
    expect([...seen].every((size) => size === old.length || size === statSync(binary.path).size)).toBe(true);
    expect(statSync(target).ino).not.toBe(oldInode);
    expect(readFileSync(oldLink, "utf8")).toBe(old);
    expect(versionOf(target)).toBe(binaryVersion);
    expect(readdirSync(dir.path)).toEqual(["svc"]);
  });
});

describe("install.sh from a signed release", () => {
  let keys: TempDir;
  /** Releases of the stand-ins 0.2.0-fake and 0.3.0-fake, signed with the throwaway key. */
  let v2: ReleaseFiles;
  let v3: ReleaseFiles;
  /** 0.3.0's files with SHA256SUMS signed by another key. */
  let otherKey: ReleaseFiles;
  /** A signed release whose binary is not a program. */
  let junk: ReleaseFiles;
  beforeAll(async () => {
    keys = tempDir();
    const key = await makeSigningKey(keys.path);
    const other = await makeSigningKey(keys.path, "other.pem");
    for (const [version, key_, name] of [["0.2.0-fake", key, "v2"], ["0.3.0-fake", key, "v3"], ["0.3.0-fake", other, "other"]] as const) {
      await makeRelease(join(keys.path, name), await standInBinary(keys.path, version), key_);
    }
    const notAProgram = join(keys.path, "junk-svc");
    await Bun.write(notAProgram, "not a program\n");
    await makeRelease(join(keys.path, "junk"), notAProgram, key);
    [v2, v3, junk] = [await readRelease(join(keys.path, "v2")), await readRelease(join(keys.path, "v3")), await readRelease(join(keys.path, "junk"))];
    otherKey = new Map(v3);
    otherKey.set("SHA256SUMS.minisig", (await readRelease(join(keys.path, "other"))).get("SHA256SUMS.minisig")!);
  });
  afterAll(() => keys?.[Symbol.asyncDispose]());
  /** install.sh as released, carrying the throwaway key. */
  const released = (args: string[], env: Record<string, string>) => install(args, env, join(keys.path, "v2", "install.sh"));

  /** `curl -fsSL <url>/latest/download/install.sh | sh -s -- <args>`, as the README says. */
  async function curlPipeSh(host: { url: string }, args: string[], env: Record<string, string>): Promise<InstallRun> {
    const quoted = args.map((arg) => `'${arg}'`).join(" ");
    const proc = Bun.spawn([SH, "-c", `curl -fsSL "$SVC_RELEASE_URL/latest/download/install.sh" | sh -s -- ${quoted}`], {
      env: { PATH: process.env.PATH!, SVC_RELEASE_URL: host.url, SVC_INSTALL_PLATFORM: "Linux x86_64", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, exitCode };
  }

  const verifiers = ["openssl", ...(Bun.which("minisign") ? ["minisign"] : [])];

  test.each(verifiers)("curl | sh: a clean install checked with %s, and the next command to run", async (verifier) => {
    await using home = tempDir();
    const dir = join(home.path, "bin");
    await using host = releaseHost({ latest: v2 });
    const run = await curlPipeSh(host, ["--install-dir", dir, "--no-modify-path"], { HOME: home.path, SVC_INSTALL_VERIFIER: verifier });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(host.requested).toEqual(["install.sh", "SHA256SUMS", "SHA256SUMS.minisig", "svc-linux-x64.tar.gz"].map((file) => `/latest/download/${file}`));
    expect(run.stdout).toContain("Signature verified: svc ");
    expect(run.stdout).toContain(`Installed svc 0.2.0-fake to ${dir}/svc`);
    expect(run.stdout).toContain(`${dir}/svc --workspace`);
    expect(readdirSync(dir)).toEqual(["svc"]);
    expect(versionOf(join(dir, "svc"))).toBe("0.2.0-fake");
  });

  test("an upgrade replaces the installed binary by rename and says from which version", async () => {
    await using home = tempDir();
    const dir = join(home.path, "bin");
    await using host = releaseHost({ "v0.1.0": v2, latest: v3 });
    const env = { HOME: home.path, PATH: `${dir}:${process.env.PATH}` };
    expect((await curlPipeSh(host, ["--version", "0.1.0", "--install-dir", dir], env)).exitCode).toBe(0);
    const before = statSync(join(dir, "svc")).ino;
    const run = await curlPipeSh(host, ["--install-dir", dir], env);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`Upgraded svc 0.2.0-fake to 0.3.0-fake in ${dir}/svc`);
    expect(run.stdout).toContain("start it in your project:  svc --workspace");
    expect(statSync(join(dir, "svc")).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(["svc"]);
    expect(versionOf(join(dir, "svc"))).toBe("0.3.0-fake");
    expect(readdirSync(home.path)).toEqual(["bin"]); // on PATH already: no rc file written
  });

  test.each([
    ["Linux x86_64", "linux-x64"],
    ["Linux aarch64", "linux-arm64"],
    ["Darwin x86_64", "darwin-x64"],
    ["Darwin arm64", "darwin-arm64"],
  ])("maps %s to svc-%s.tar.gz and --version to /download/v<version>/", async (platform, target) => {
    await using home = tempDir();
    await using dir = tempDir();
    await using host = releaseHost({ "v0.1.0": v2 });
    const run = await released(["--base-url", `${host.url}/`, "--version", "v0.1.0", "--install-dir", dir.path, "--no-modify-path"], {
      HOME: home.path,
      SVC_INSTALL_PLATFORM: platform,
    });
    expect(run.exitCode).toBe(0);
    expect(host.requested.at(-1)).toBe(`/download/v0.1.0/svc-${target}.tar.gz`);
    expect(versionOf(join(dir.path, "svc"))).toBe("0.2.0-fake");
  });

  test("refuses an unknown platform before touching the disk", async () => {
    await using home = tempDir();
    const dir = join(home.path, "bin");
    const run = await released(["--base-url", "http://127.0.0.1:9", "--install-dir", dir], { HOME: home.path, SVC_INSTALL_PLATFORM: "Plan9 mips" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Plan9 mips");
    expect(readdirSync(home.path)).toEqual([]);
  });

  /** `files` with one file's bytes changed. */
  const altered = (files: ReleaseFiles, name: string, change: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer> | string): ReleaseFiles =>
    new Map(files).set(name, (() => {
      const next = change(files.get(name)!);
      return typeof next === "string" ? new TextEncoder().encode(next) : next;
    })());
  const flipAByte = (bytes: Uint8Array<ArrayBuffer>) => {
    const copy = bytes.slice();
    copy[copy.length - 10]! ^= 0xff;
    return copy;
  };
  const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  /** A tampered archive whose SHA256SUMS was rewritten to match: only the signature can catch it. */
  const forgedSums = () => {
    const archive = flipAByte(v3.get("svc-linux-x64.tar.gz")!);
    const sums = new TextDecoder().decode(v3.get("SHA256SUMS")).replace(/^[0-9a-f]{64}(?=  svc-linux-x64\.tar\.gz$)/m, sha256(archive));
    return altered(altered(v3, "svc-linux-x64.tar.gz", () => archive), "SHA256SUMS", () => sums);
  };
  const refusals: [string, () => ReleaseFiles, string[], string][] = [
    ["a tampered archive", () => altered(v3, "svc-linux-x64.tar.gz", flipAByte), [], "checksum mismatch for svc-linux-x64.tar.gz"],
    ["a bad signature (SHA256SUMS rewritten to match a tampered archive)", forgedSums, [], "signature does not match"],
    ["a signature by another key", () => otherKey, [], "signature does not match"],
    ["a damaged signature file", () => altered(v3, "SHA256SUMS.minisig", () => "untrusted comment: x\nRUQ=\n"), [], "signature does not match"],
    ["a signed release of another version than asked for", () => v3, ["--version", "9.9.9"], "asked for 9.9.9, but the signed release is 'svc "],
    [
      "a trusted comment changed to the version asked for",
      () => altered(v3, "SHA256SUMS.minisig", (bytes) => new TextDecoder().decode(bytes).replace(/^trusted comment: .*$/m, "trusted comment: svc 9.9.9")),
      ["--version", "9.9.9"],
      "signature does not match",
    ],
    ["a verified download that does not run", () => junk, [], "the new binary does not run"],
  ];
  for (const verifier of verifiers) {
    test.each(refusals)(`${verifier}: refuses %s, the installed svc untouched and no temp file left`, async (_, files, args, message) => {
      await using home = tempDir();
      await using dir = tempDir();
      const target = join(dir.path, "svc");
      await Bun.write(target, "#!/bin/sh\necho old\n");
      chmodSync(target, 0o755);
      // The stand-in releases are signed as the package's version.
      const versionArg = args.length > 0 ? args : ["--version", "0.1.0"];
      await using host = releaseHost({ "v0.1.0": files(), "v9.9.9": files() });
      const run = await released(["--base-url", host.url, ...versionArg, "--install-dir", dir.path, "--no-modify-path"], {
        HOME: home.path,
        SVC_INSTALL_PLATFORM: "Linux x86_64",
        SVC_INSTALL_VERIFIER: verifier,
      });
      expect(run.exitCode).not.toBe(0);
      expect(run.stderr).toContain(message);
      expect(run.stdout).not.toContain("Installed");
      expect(readdirSync(dir.path)).toEqual(["svc"]);
      expect(versionOf(target)).toBe("old");
    });
  }

  test("a refused download creates no install dir", async () => {
    await using home = tempDir();
    const dir = join(home.path, "bin");
    await using host = releaseHost({ latest: forgedSums() });
    const run = await curlPipeSh(host, ["--install-dir", dir], { HOME: home.path, SVC_INSTALL_VERIFIER: "openssl" });
    expect(run.stderr).toContain("signature does not match");
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(home.path)).toEqual([]);
  });

  test("curl | sh of a script cut short runs none of it", async () => {
    await using home = tempDir();
    const dir = join(home.path, "bin");
    const script = v2.get("install.sh")!;
    const cut = script.slice(0, new TextDecoder().decode(script).lastIndexOf("\nmain "));
    await using host = releaseHost({ latest: altered(v2, "install.sh", () => cut) });
    const run = await curlPipeSh(host, ["--install-dir", dir], { HOME: home.path, TMPDIR: home.path });
    expect(run.stdout).toBe("");
    expect(host.requested).toEqual(["/latest/download/install.sh"]);
    expect(readdirSync(home.path)).toEqual([]);
  });

  test("an HTTP 404 names the URL", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    await using host = releaseHost({});
    const run = await released(["--base-url", host.url, "--version", "9.9.9", "--install-dir", dir.path], { HOME: home.path, SVC_INSTALL_PLATFORM: "Linux x86_64" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`could not download ${host.url}/download/v9.9.9/SHA256SUMS`);
    expect(readdirSync(dir.path)).toEqual([]);
  });

  // A machine with neither minisign nor OpenSSL 3 (a bare macOS has LibreSSL), with wget and shasum
  // in place of curl and sha256sum.
  const bareTools = ["wget", "shasum", "basename", "dirname", "uname", "mkdir", "mktemp", "rm", "cp", "chmod", "mv", "cut", "tr", "grep", "sed", "awk", "gzip", "tar", "cat"];
  test.skipIf(bareTools.some((tool) => Bun.which(tool) === null))(
    "without a signature checker it refuses, unless --insecure-skip-signature, which still checks the checksum",
    async () => {
      await using home = tempDir();
      await using dir = tempDir();
      const bin = join(home.path, "tools");
      mkdirSync(bin);
      for (const tool of bareTools) symlinkSync(Bun.which(tool)!, join(bin, tool));
      const env = { HOME: home.path, PATH: bin, SVC_INSTALL_PLATFORM: "Linux x86_64" };
      const args = ["--install-dir", dir.path, "--no-modify-path"];

      await using host = releaseHost({ latest: v2, "v0.1.0": altered(v3, "svc-linux-x64.tar.gz", flipAByte) });
      const refused = await released(["--base-url", host.url, ...args], env);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toContain("cannot check the release's signature: install minisign or OpenSSL 3");
      expect(readdirSync(dir.path)).toEqual([]);

      const tampered = await released(["--base-url", host.url, "--version", "0.1.0", "--insecure-skip-signature", ...args], env);
      expect(tampered.stderr).toContain("checksum mismatch");
      expect(readdirSync(dir.path)).toEqual([]);

      const insecure = await released(["--base-url", host.url, "--insecure-skip-signature", ...args], env);
      expect(insecure.stderr).toContain("the release's signature was NOT checked");
      expect(insecure.exitCode).toBe(0);
      expect(versionOf(join(dir.path, "svc"))).toBe("0.2.0-fake");
    },
  );

  test("install.sh carries the key the binary trusts, and the release location the README shows", async () => {
    const script = await Bun.file(INSTALL_SH).text();
    expect(script).toContain(`RELEASE_PUBLIC_KEY="${PROJECT_RELEASE_PUBLIC_KEY}"`);
    expect(Bun.spawnSync([binary.path, "--version", "--verbose"]).stdout.toString()).toBe(`${binaryVersion}\nrelease key ${PROJECT_RELEASE_PUBLIC_KEY}\n`);
    const releaseUrl = /^RELEASE_URL="(https:\/\/[^"]+)"$/m.exec(script)?.[1];
    expect(await Bun.file(join(REPO_ROOT, "README.md")).text()).toContain(`curl -fsSL ${releaseUrl}/latest/download/install.sh | sh\n`);
  });
});

describe("install.sh PATH setup", () => {
  test("adds one PATH line to ~/.bashrc however often it runs, and the line works", async () => {
    await using home = tempDir();
    const dir = join(home.path, ".svc", "bin");
    const env = { HOME: home.path, SHELL: "/bin/bash" };
    for (let i = 0; i < 2; i++) expect((await install(["--binary", fakeBinary], env)).exitCode).toBe(0);
    const rc = readFileSync(join(home.path, ".bashrc"), "utf8");
    expect(rc.split("\n").filter((line) => line.includes(dir))).toEqual([`export PATH="${dir}:$PATH"`]);
    const found = Bun.spawnSync([BASH, "-c", `source "$HOME/.bashrc" && command -v svc`], { env: { ...env, PATH: "/usr/bin:/bin" } });
    expect(found.stdout.toString().trim()).toBe(join(dir, "svc"));
  });

  test.each([
    ["/usr/bin/zsh", ".zshrc", (dir: string) => `export PATH="${dir}:$PATH"`],
    ["/usr/bin/fish", ".config/fish/config.fish", (dir: string) => `set --export PATH "${dir}" $PATH`],
  ])("SHELL=%s writes to ~/%s", async (shell, rcFile, line) => {
    await using home = tempDir();
    await using dir = tempDir();
    const run = await install(["--binary", fakeBinary, "--install-dir", dir.path], { HOME: home.path, SHELL: shell });
    expect(run.exitCode).toBe(0);
    expect(readFileSync(join(home.path, rcFile), "utf8")).toContain(`\n${line(dir.path)}\n`);
  });

  test("--no-modify-path writes nothing outside the install dir", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    const run = await install(["--binary", fakeBinary, "--install-dir", dir.path, "--no-modify-path"], { HOME: home.path, SHELL: "/bin/bash" });
    expect(run.exitCode).toBe(0);
    expect(readdirSync(home.path)).toEqual([]);
  });

  test("leaves rc files alone when the install dir is already on PATH", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    const run = await install(["--binary", fakeBinary, "--install-dir", dir.path], {
      HOME: home.path,
      SHELL: "/bin/bash",
      PATH: `${dir.path}:${process.env.PATH}`,
    });
    expect(run.exitCode).toBe(0);
    expect(readdirSync(home.path)).toEqual([]);
  });
});

test.skipIf(Bun.which("shellcheck") === null)("install.sh and .ci/run pass shellcheck", () => {
  const check = Bun.spawnSync(["shellcheck", "install.sh", ".ci/run"], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  expect(check.stdout.toString() + check.stderr.toString()).toBe("");
  expect(check.exitCode).toBe(0);
});
