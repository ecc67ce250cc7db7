/**
 * install.sh against a real compiled binary: local installs, downloads from a loopback release
 * server (checksums, 404s, platform → asset names), PATH edits and atomic replacement.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const INSTALL_SH = join(REPO_ROOT, "install.sh");
const BASH = Bun.which("bash")!;
/** A tiny stand-in for a release binary: quick to serve, and it answers --version. */
const FAKE_SVC = "#!/bin/sh\necho 0.2.0-fake\n";

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

let binary: BuiltBinary;
let binaryVersion: string;
let binarySha: string;
/** FAKE_SVC as a local file, for tests about where things go rather than what gets installed. */
let fakeBinary: string;
beforeAll(async () => {
  binary = await buildBinary();
  binaryVersion = Bun.spawnSync([binary.path, "--version"]).stdout.toString().trim();
  binarySha = (await Bun.file(`${binary.path}.sha256`).text()).split(" ")[0]!;
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
async function install(args: string[], env: Record<string, string>): Promise<InstallRun> {
  const proc = Bun.spawn([BASH, INSTALL_SH, ...args], {
    env: { PATH: process.env.PATH!, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exitCode };
}

/** A loopback release host: serves exactly the paths in `files` and records every request path. */
function releaseServer(files: Record<string, () => Response>) {
  const requested: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      requested.push(path);
      return files[path]?.() ?? new Response("not found", { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requested, [Symbol.asyncDispose]: () => server.stop(true) };
}

/** An asset and its checksum file at `<prefix>/<asset>`; the fake binary unless told otherwise. */
function release(prefix: string, asset: string, body: () => BodyInit = () => FAKE_SVC, sha = sha256(FAKE_SVC)): Record<string, () => Response> {
  return {
    [`${prefix}/${asset}`]: () => new Response(body()),
    [`${prefix}/${asset}.sha256`]: () => new Response(`${sha}  ${asset}\n`),
  };
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

    const proc = Bun.spawn([BASH, INSTALL_SH, "--binary", binary.path, "--install-dir", dir.path, "--no-modify-path"], {
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

describe("install.sh downloads", () => {
  test("fetches latest for this platform, verifies its checksum and installs it", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    await using host = releaseServer(release("/latest", "svc-linux-x64", () => Bun.file(binary.path), binarySha));
    const run = await install(["--install-dir", dir.path, "--no-modify-path"], {
      HOME: home.path,
      SVC_RELEASE_BASE_URL: host.url,
      SVC_INSTALL_PLATFORM: "Linux x86_64",
    });
    expect(run.exitCode).toBe(0);
    expect(host.requested).toEqual(["/latest/svc-linux-x64", "/latest/svc-linux-x64.sha256"]);
    expect(readdirSync(dir.path)).toEqual(["svc"]);
    expect(versionOf(join(dir.path, "svc"))).toBe(binaryVersion);
  });

  test.each([
    ["Linux x86_64", "svc-linux-x64"],
    ["Linux aarch64", "svc-linux-arm64"],
    ["Darwin x86_64", "svc-darwin-x64"],
    ["Darwin arm64", "svc-darwin-arm64"],
  ])("maps %s to %s and --version to /v<version>/", async (platform, asset) => {
    await using home = tempDir();
    await using dir = tempDir();
    await using host = releaseServer(release("/v0.2.0", asset));
    const run = await install(["--base-url", `${host.url}/`, "--version", "v0.2.0", "--install-dir", dir.path, "--no-modify-path"], {
      HOME: home.path,
      SVC_INSTALL_PLATFORM: platform,
    });
    expect(run.exitCode).toBe(0);
    expect(host.requested).toEqual([`/v0.2.0/${asset}`, `/v0.2.0/${asset}.sha256`]);
    expect(versionOf(join(dir.path, "svc"))).toBe("0.2.0-fake");
  });

  test("refuses an unknown platform before touching the disk", async () => {
    await using home = tempDir();
    const dir = join(home.path, "bin");
    const run = await install(["--base-url", "http://127.0.0.1:9", "--install-dir", dir], { HOME: home.path, SVC_INSTALL_PLATFORM: "Plan9 mips" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Plan9 mips");
    expect(readdirSync(home.path)).toEqual([]);
  });

  const JUNK = "not a program\n";
  test.each([
    ["a checksum mismatch", release("/latest", "svc-linux-x64", () => FAKE_SVC, "0".repeat(64)), [], ["checksum mismatch"]],
    ["a verified download that does not run", release("/latest", "svc-linux-x64", () => JUNK, sha256(JUNK)), [], ["does not run"]],
    ["an HTTP 404 with a message naming the URL", {}, ["--version", "9.9.9"], ["could not download {url}/v9.9.9/svc-linux-x64", "404"]],
  ] as const)("refuses %s, leaving no binary or temp file", async (_, files, args, messages) => {
    await using home = tempDir();
    await using dir = tempDir();
    await using host = releaseServer(files);
    const run = await install(["--base-url", host.url, ...args, "--install-dir", dir.path, "--no-modify-path"], {
      HOME: home.path,
      SVC_INSTALL_PLATFORM: "Linux x86_64",
    });
    expect(run.exitCode).not.toBe(0);
    for (const message of messages) expect(run.stderr).toContain(message.replace("{url}", host.url));
    expect(readdirSync(dir.path)).toEqual([]);
  });

  test("without a release URL it says how to give one", async () => {
    await using home = tempDir();
    const run = await install(["--install-dir", join(home.path, "bin")], { HOME: home.path });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("SVC_RELEASE_BASE_URL");
  });

  // The fallbacks for machines without curl or sha256sum (e.g. a bare macOS has shasum, not sha256sum).
  const fallbackTools = ["wget", "shasum", "basename", "dirname", "uname", "mkdir", "mktemp", "rm", "cp", "chmod", "mv", "cut", "tr", "grep"];
  test.skipIf(fallbackTools.some((tool) => Bun.which(tool) === null))("falls back to wget and shasum", async () => {
    await using home = tempDir();
    await using dir = tempDir();
    const bin = join(home.path, "tools");
    mkdirSync(bin);
    for (const tool of fallbackTools) symlinkSync(Bun.which(tool)!, join(bin, tool));
    await using host = releaseServer(release("/latest", "svc-linux-x64"));
    const env = { HOME: home.path, PATH: bin, SVC_RELEASE_BASE_URL: host.url, SVC_INSTALL_PLATFORM: "Linux x86_64" };

    const ok = await install(["--install-dir", dir.path, "--no-modify-path"], env);
    expect(ok.stderr).toBe("");
    expect(ok.exitCode).toBe(0);
    expect(versionOf(join(dir.path, "svc"))).toBe("0.2.0-fake");

    const missing = await install(["--version", "9.9.9", "--install-dir", dir.path, "--no-modify-path"], env);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain(`could not download ${host.url}/v9.9.9/svc-linux-x64`);
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
