/**
 * `svc agents` and `svc agents install <name>` against a loopback fake npm registry (a packument
 * and a tarball built here): offline, and run as the product runs (the sources under bun, or the
 * compiled binary with SVC_TEST_TARGET=binary). HOME points at a fake home whose contents must not
 * change, and nothing may appear outside `<SVC_HOME>/agents/<name>/`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { AGENT_PACKAGES } from "../../src/config/agent-catalog.ts";
import { MAIN_TS } from "../helpers/daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { testTarget } from "../helpers/test-target.ts";
import { until } from "../helpers/until.ts";

const PKG = AGENT_PACKAGES.claude;
const target = testTarget();
const svc = target.kind === "binary" ? [target.path] : [process.execPath, MAIN_TS];

/** A package tarball (`package/…`, gzip) built with the system tar; `executables` get mode 755. */
async function buildTarball(root: string, manifest: Record<string, unknown>, files: Record<string, string>, executables: readonly string[] = []): Promise<Uint8Array> {
  const src = join(root, `src-${Math.random().toString(36).slice(2)}`);
  for (const [path, text] of Object.entries({ "package.json": JSON.stringify(manifest), ...files })) {
    mkdirSync(join(src, "package", path, ".."), { recursive: true });
    writeFileSync(join(src, "package", path), text);
    chmodSync(join(src, "package", path), executables.includes(path) ? 0o755 : 0o644);
  }
  const out = join(src, "pkg.tgz");
  const tar = Bun.spawnSync(["tar", "-czf", out, "-C", src, "package"]);
  if (tar.exitCode !== 0) throw new Error(`tar failed: ${tar.stderr.toString()}`);
  return new Uint8Array(readFileSync(out));
}

const integrityOf = (bytes: Uint8Array) => `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;

interface Served {
  version: string;
  tarball: Uint8Array;
  integrity: string;
  /** Dependencies the packument's version declares as optional. */
  optionalDependencies?: Record<string, string>;
  /** The tarball's response never ends (a registry that stalls). */
  stall?: boolean;
}

interface Registry {
  url: string;
  /** What the registry serves for the claude package: the tarball bytes and the integrity the packument claims. */
  serve(tarball: Uint8Array, integrity: string, options?: { stall?: boolean }): void;
  /** What it serves for package `name` (null: 404). */
  servePackage(name: string, served: Served | null): void;
  stop(): void;
}

function fakeRegistry(): Registry {
  const packages = new Map<string, Served>();
  const server: Bun.Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(req): Response {
      const path = decodeURIComponent(new URL(req.url).pathname);
      for (const [name, p] of packages) {
        if (path === `/${name}`) {
          const version: Record<string, unknown> = {
            name,
            version: p.version,
            ...(p.optionalDependencies ? { optionalDependencies: p.optionalDependencies } : {}),
            dist: { tarball: `${server.url.origin}/tarballs/${encodeURIComponent(name)}-${p.version}.tgz`, integrity: p.integrity },
          };
          return Response.json({ name, "dist-tags": { latest: p.version }, versions: { [p.version]: version } });
        }
        if (path === `/tarballs/${name}-${p.version}.tgz`) {
          if (p.stall) return new Response(new ReadableStream({ start: () => {} }), { headers: { "content-type": "application/octet-stream" } });
          return new Response(p.tarball as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/octet-stream" } });
        }
      }
      return new Response("not found", { status: 404 });
    },
  });
  const servePackage = (name: string, served: Served | null) => (served === null ? packages.delete(name) : packages.set(name, served));
  return {
    url: server.url.href,
    serve: (tarball, integrity, options = {}) => servePackage(PKG.name, { version: PKG.version, tarball, integrity, ...options }),
    servePackage,
    stop: () => server.stop(true),
  };
}

/** Every path below `root` (files and folders, with size and mtime), except those below `except`. */
function snapshot(root: string, except: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === except) continue;
      const st = lstatSync(path);
      out.push(`${relative(root, path)} ${st.isDirectory() ? "dir" : `${st.size} ${st.mtimeMs}`}`);
      if (st.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out.sort();
}

let root: TempDir;
let registry: Registry;
let good: Uint8Array;
beforeAll(async () => {
  root = tempDir("svc-agents-install-");
  registry = fakeRegistry();
  good = await buildTarball(root.path, { name: PKG.name, version: PKG.version, bin: { "claude-agent-acp": "dist/index.js" } }, { "dist/index.js": "console.log('fake claude');\n" });
});
afterAll(async () => {
  registry?.stop();
  await root?.[Symbol.asyncDispose]();
});

function start(home: string, svcHome: string, args: string[]) {
  return Bun.spawn([...svc, "agents", ...args], {
    // Bun running the sources keeps a transpiler cache under HOME; that is the test runner, not the install.
    env: { PATH: process.env.PATH ?? "", HOME: home, SVC_HOME: svcHome, SVC_NPM_REGISTRY: registry.url, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
    cwd: home,
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function run(home: string, svcHome: string, args: string[]) {
  const proc = start(home, svcHome, args);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exitCode };
}

function fixture(name: string) {
  const base = join(root.path, name);
  const home = join(base, "home");
  const svcHome = join(base, "svc");
  mkdirSync(join(home, ".config"), { recursive: true });
  writeFileSync(join(home, ".npmrc"), "registry=http://127.0.0.1:9/\n");
  mkdirSync(svcHome, { recursive: true });
  return { base, home, svcHome, agentDir: join(svcHome, "agents", "claude") };
}

describe("svc agents install", () => {
  test("installs the pinned package into the agent directory, writes nothing else, and `svc agents` shows it", async () => {
    const fx = fixture("ok");
    registry.serve(good, integrityOf(good));
    const before = snapshot(fx.base, fx.agentDir);
    const listed0 = await run(fx.home, fx.svcHome, []);
    expect(listed0.stdout).toMatch(/claude\s+@agentclientprotocol\/claude-agent-acp@0\.101\.0\s+not installed/);

    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.stderr + result.stdout).not.toContain("error");
    expect(result.exitCode).toBe(0);
    const entry = join(fx.agentDir, "node_modules", PKG.entry(process.platform, process.arch));
    expect(result.stdout).toContain(`installed claude ${PKG.version}: ${entry}`);
    expect(readFileSync(entry, "utf8")).toContain("fake claude");
    // node_modules is a link to the staged tree inside the agent directory; besides it there is only
    // the workspace guard (a package.json that stops bun's upward search for a workspace root).
    expect(lstatSync(join(fx.agentDir, "node_modules")).isSymbolicLink()).toBe(true);
    const [staged] = readdirSync(fx.agentDir).filter((n) => n.startsWith(".install-"));
    expect(readdirSync(fx.agentDir).sort()).toEqual(["node_modules", staged!, "package.json"].sort());
    expect(JSON.parse(readFileSync(join(fx.agentDir, "package.json"), "utf8")).workspaces).toEqual([]);
    expect(readlinkSync(join(fx.agentDir, "node_modules"))).toBe(join(staged!, "node_modules"));
    expect(snapshot(fx.base, fx.agentDir)).toEqual([...before, "svc/agents dir"].sort());

    const listed = await run(fx.home, fx.svcHome, []);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/claude\s+@agentclientprotocol\/claude-agent-acp@0\.101\.0\s+installed 0\.101\.0\s+script \(svc's Bun\)\s+\S+index\.js/);

    // A reinstall switches to a fresh tree and keeps the replaced one (an agent may still run from it) as .previous.
    const again = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(again.exitCode).toBe(0);
    const trees = () => readdirSync(fx.agentDir).filter((n) => n.startsWith(".install-"));
    const second = readlinkSync(join(fx.agentDir, "node_modules")).split("/")[0]!;
    expect(second).not.toBe(staged);
    expect(trees().sort()).toEqual([staged!, second].sort());
    expect(readlinkSync(join(fx.agentDir, ".previous"))).toBe(staged!);
    expect(existsSync(entry)).toBe(true);
    // The next one removes the tree two installs old.
    expect((await run(fx.home, fx.svcHome, ["install", "claude"])).exitCode).toBe(0);
    const third = readlinkSync(join(fx.agentDir, "node_modules")).split("/")[0]!;
    expect(trees().sort()).toEqual([second, third].sort());
    expect(readlinkSync(join(fx.agentDir, ".previous"))).toBe(second);
  }, 60_000);

  test("a tarball that does not match the packument's integrity is refused and leaves nothing behind", async () => {
    const fx = fixture("tampered");
    const evil = await buildTarball(root.path, { name: PKG.name, version: PKG.version }, { "dist/index.js": "console.log('evil');\n" });
    registry.serve(evil, integrityOf(good));
    const before = snapshot(fx.base, "/nonexistent");
    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("svc agents install claude:");
    expect(result.stderr.toLowerCase()).toContain("integrity");
    expect(existsSync(fx.agentDir)).toBe(false);
    expect(snapshot(fx.base, "/nonexistent")).toEqual(before);
  }, 60_000);

  test("a failed reinstall leaves the previous install intact", async () => {
    const fx = fixture("keep");
    registry.serve(good, integrityOf(good));
    expect((await run(fx.home, fx.svcHome, ["install", "claude"])).exitCode).toBe(0);
    const before = snapshot(fx.base, "/nonexistent");
    const wrong = await buildTarball(root.path, { name: PKG.name, version: "6.6.6" }, { "dist/index.js": "console.log('other');\n" });
    registry.serve(wrong, integrityOf(wrong));
    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("refusing the install");
    expect(snapshot(fx.base, "/nonexistent")).toEqual(before);
    expect((await run(fx.home, fx.svcHome, [])).stdout).toMatch(/claude\s+\S+\s+installed 0\.101\.0/);
  }, 60_000);

  test("a name not in the list exits 2 with the list; builtin needs no install", async () => {
    const fx = fixture("names");
    const unknown = await run(fx.home, fx.svcHome, ["install", "claude-code"]);
    expect(unknown.exitCode).toBe(2);
    for (const name of Object.keys(AGENT_PACKAGES)) expect(unknown.stderr).toContain(name);
    const builtin = await run(fx.home, fx.svcHome, ["install", "builtin"]);
    expect(builtin.exitCode).toBe(2);
    expect(builtin.stderr).toContain("builtin needs no install");
    expect((await run(fx.home, fx.svcHome, ["remove"])).exitCode).toBe(2);
    expect(existsSync(join(fx.svcHome, "agents"))).toBe(false);
    expect(statSync(fx.home).isDirectory()).toBe(true);
  });
});

/** Pids of the processes whose command line has an argument containing `text` (Linux /proc). */
function pidsWithArg(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").some((arg) => arg.includes(text))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const trees = (dir: string) => readdirSync(dir).filter((n) => n.startsWith(".install-"));

describe("svc agents install refuses a tree without the agent's entry", () => {
  test("a package lacking the entry file is refused, and the working install stays", async () => {
    const fx = fixture("entryless");
    registry.serve(good, integrityOf(good));
    expect((await run(fx.home, fx.svcHome, ["install", "claude"])).exitCode).toBe(0);
    const before = snapshot(fx.base, "/nonexistent");
    const entryless = await buildTarball(root.path, { name: PKG.name, version: PKG.version }, { "README.md": "no dist\n" });
    registry.serve(entryless, integrityOf(entryless));
    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`svc agents install claude: the installed tree has no ${PKG.entry(process.platform, process.arch)}; refusing the install`);
    expect(snapshot(fx.base, "/nonexistent")).toEqual(before);
    expect((await run(fx.home, fx.svcHome, [])).stdout).toMatch(/claude\s+\S+\s+installed 0\.101\.0/);
  }, 60_000);

  test("a native agent: its platform binary must be there and executable (opencode's optional platform package)", async () => {
    const fx = fixture("native");
    const oc = AGENT_PACKAGES.opencode;
    const [platformPkg, ...binPath] = oc.entry(process.platform, process.arch).split("/");
    const bin = binPath.join("/");
    const top = await buildTarball(root.path, { name: oc.name, version: oc.version, optionalDependencies: { [platformPkg!]: oc.version } }, { "bin/opencode": "placeholder\n" });
    registry.servePackage(oc.name, { version: oc.version, tarball: top, integrity: integrityOf(top), optionalDependencies: { [platformPkg!]: oc.version } });
    const platform = (mode: "exec" | "plain") => buildTarball(root.path, { name: platformPkg, version: oc.version }, { [bin]: "#!/bin/sh\necho opencode\n" }, mode === "exec" ? [bin] : []);
    const plain = await platform("plain");
    registry.servePackage(platformPkg!, { version: oc.version, tarball: plain, integrity: integrityOf(plain) });
    const notExecutable = await run(fx.home, fx.svcHome, ["install", "opencode"]);
    expect(notExecutable.exitCode).toBe(1);
    expect(notExecutable.stderr).toContain(`the installed tree has no executable ${oc.entry(process.platform, process.arch)}`);
    const exec = await platform("exec");
    registry.servePackage(platformPkg!, { version: oc.version, tarball: exec, integrity: integrityOf(exec) });
    expect((await run(fx.home, fx.svcHome, ["install", "opencode"])).exitCode).toBe(0);
    const agentDir = join(fx.svcHome, "agents", "opencode");
    const before = snapshot(fx.base, "/nonexistent");
    // The platform package is gone from the registry: bun only warns; svc refuses and keeps the install.
    registry.servePackage(platformPkg!, null);
    const missing = await run(fx.home, fx.svcHome, ["install", "opencode"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("refusing the install");
    expect(snapshot(fx.base, "/nonexistent")).toEqual(before);
    expect(statSync(join(agentDir, "node_modules", oc.entry(process.platform, process.arch))).mode & 0o111).not.toBe(0);
    registry.servePackage(oc.name, null);
  }, 90_000);
});

describe("svc agents install stays inside the agent directory", () => {
  test("an ancestor package.json whose workspaces match the staging directory is not used as the root", async () => {
    const fx = fixture("workspace-root");
    registry.serve(good, integrityOf(good));
    writeFileSync(join(fx.svcHome, "package.json"), JSON.stringify({ name: "root", private: true, workspaces: ["agents/*/.install-*", "agents/**"] }));
    const before = snapshot(fx.base, fx.agentDir);
    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.exitCode).toBe(0);
    expect(snapshot(fx.base, fx.agentDir)).toEqual([...before, "svc/agents dir"].sort());
    expect(existsSync(join(fx.agentDir, "node_modules", PKG.entry(process.platform, process.arch)))).toBe(true);
  }, 60_000);

  test.each([
    ["agents/claude", (fx: ReturnType<typeof fixture>) => join(fx.agentDir)],
    ["agents", (fx: ReturnType<typeof fixture>) => join(fx.svcHome, "agents")],
  ])("a symbolic link planted at %s is refused; nothing is written where it points", async (where, at) => {
    const fx = fixture(`planted-${where.replace("/", "-")}`);
    registry.serve(good, integrityOf(good));
    const elsewhere = join(fx.base, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(join(at(fx), ".."), { recursive: true });
    symlinkSync(elsewhere, at(fx));
    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`svc agents install claude: ${at(fx)} is not a directory (a symbolic link); refusing the install\n`);
    expect(readdirSync(elsewhere)).toEqual([]);
  }, 60_000);

  test("a file system error is one line on stderr and exit 1, not a stack", async () => {
    const fx = fixture("enotdir");
    // A directory where the agent directory's package.json goes: renaming the file over it fails (EISDIR).
    mkdirSync(join(fx.agentDir, "package.json", "x"), { recursive: true });
    const result = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^svc agents install claude: (EISDIR|ENOTEMPTY|EEXIST)[^\n]*\n$/);
    rmSync(join(fx.svcHome, "agents"), { recursive: true });
    // A regular file where the agents directory goes is refused the same way.
    writeFileSync(join(fx.svcHome, "agents"), "x\n");
    const agents = await run(fx.home, fx.svcHome, ["install", "claude"]);
    expect(agents.exitCode).toBe(1);
    expect(agents.stderr).toBe(`svc agents install claude: ${join(fx.svcHome, "agents")} is not a directory (another file); refusing the install\n`);
  }, 60_000);
});

describe.skipIf(process.platform !== "linux")("an install that is killed", () => {
  test.each([["SIGKILL", null], ["SIGTERM", 143]] as const)(
    "%s: bun add does not outlive it, and its staging tree is gone by the next install",
    async (signal, exitCode) => {
      const fx = fixture(`killed-${signal}`);
      registry.serve(good, integrityOf(good), { stall: true });
      const proc = start(fx.home, fx.svcHome, ["install", "claude"]);
      // bun add is running once a process has the staging directory as its --cwd.
      const adders = await until(() => {
        const pids = pidsWithArg(join(fx.agentDir, ".install-"));
        return pids.length > 0 ? pids : null;
      }, 30_000);
      proc.kill(signal);
      expect(await proc.exited).toBe(exitCode ?? 128 + 9);
      await until(() => (adders.every((pid) => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z")) ? true : null), 10_000);
      expect(pidsWithArg(join(fx.agentDir, ".install-"))).toEqual([]);
      // SIGTERM removed what it made (the agent directory included: this was the first install); after SIGKILL the next install sweeps it.
      if (signal === "SIGTERM") expect(existsSync(fx.agentDir)).toBe(false);
      else expect(trees(fx.agentDir)).toHaveLength(1);
      registry.serve(good, integrityOf(good));
      expect((await run(fx.home, fx.svcHome, ["install", "claude"])).exitCode).toBe(0);
      expect(trees(fx.agentDir)).toEqual([readlinkSync(join(fx.agentDir, "node_modules")).split("/")[0]!]);
    },
    60_000,
  );
});
