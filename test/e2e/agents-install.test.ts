/**
 * `svc agents` and `svc agents install <name>` against a loopback fake npm registry (a packument
 * and a tarball built here): offline, and run as the product runs (the sources under bun, or the
 * compiled binary with SVC_TEST_TARGET=binary). HOME points at a fake home whose contents must not
 * change, and nothing may appear outside `<SVC_HOME>/agents/<name>/`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { AGENT_PACKAGES } from "../../src/config/agent-catalog.ts";
import { MAIN_TS } from "../helpers/daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { testTarget } from "../helpers/test-target.ts";

const PKG = AGENT_PACKAGES.claude;
const target = testTarget();
const svc = target.kind === "binary" ? [target.path] : [process.execPath, MAIN_TS];

/** A package tarball (`package/…`, gzip) built with the system tar. */
async function buildTarball(root: string, manifest: Record<string, unknown>, files: Record<string, string>): Promise<Uint8Array> {
  const src = join(root, `src-${Math.random().toString(36).slice(2)}`);
  for (const [path, text] of Object.entries({ "package.json": JSON.stringify(manifest), ...files })) {
    mkdirSync(join(src, "package", path, ".."), { recursive: true });
    writeFileSync(join(src, "package", path), text);
  }
  const out = join(src, "pkg.tgz");
  const tar = Bun.spawnSync(["tar", "-czf", out, "-C", src, "package"]);
  if (tar.exitCode !== 0) throw new Error(`tar failed: ${tar.stderr.toString()}`);
  return new Uint8Array(readFileSync(out));
}

const integrityOf = (bytes: Uint8Array) => `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;

interface Registry {
  url: string;
  /** What the registry serves for the package: the tarball bytes and the integrity the packument claims. */
  serve(tarball: Uint8Array, integrity: string): void;
  stop(): void;
}

function fakeRegistry(): Registry {
  let current: { tarball: Uint8Array; integrity: string } | null = null;
  const server: Bun.Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req): Response {
      const path = decodeURIComponent(new URL(req.url).pathname);
      if (current === null) return new Response("not found", { status: 404 });
      if (path === `/${PKG.name}`) {
        const version: Record<string, unknown> = { name: PKG.name, version: PKG.version, dist: { tarball: `${server.url.origin}/tarballs/pkg-${PKG.version}.tgz`, integrity: current.integrity } };
        return Response.json({ name: PKG.name, "dist-tags": { latest: PKG.version }, versions: { [PKG.version]: version } });
      }
      if (path === `/tarballs/pkg-${PKG.version}.tgz`) return new Response(current.tarball as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/octet-stream" } });
      return new Response("not found", { status: 404 });
    },
  });
  return { url: server.url.href, serve: (tarball, integrity) => (current = { tarball, integrity }), stop: () => server.stop(true) };
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

async function run(home: string, svcHome: string, args: string[]) {
  const proc = Bun.spawn([...svc, "agents", ...args], {
    // Bun running the sources keeps a transpiler cache under HOME; that is the test runner, not the install.
    env: { PATH: process.env.PATH ?? "", HOME: home, SVC_HOME: svcHome, SVC_NPM_REGISTRY: registry.url, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
    cwd: home,
    stdout: "pipe",
    stderr: "pipe",
  });
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
