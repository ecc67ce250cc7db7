/**
 * `svc agents install <name>`: installs an agent's pinned npm package into svc's own agent
 * directory (`<dataDir>/agents/<name>/`) with the Bun that runs svc (`process.execPath`, made to act
 * as bun by `BUN_BE_BUN=1` inside the compiled binary; bun itself under the sources).
 *
 * Nothing is written outside the agent directory: the install runs in a fresh staging directory
 * inside it, with HOME, TMPDIR, the XDG directories and bun's cache pointed inside that staging
 * directory and a minimal environment (the user's npm and bun configuration are not read), and
 * `--ignore-scripts` (no package's install script runs). Integrity: bun checks every tarball
 * against the registry's `dist.integrity`; then every package of the lockfile must carry a sha512
 * integrity and the installed package's package.json must name the pinned name and version, or
 * the install is refused. Only then is `node_modules` switched to the new tree, by renaming a
 * symbolic link over it (atomic); the previous tree is removed after the switch. A failed install
 * removes its staging directory and leaves the previous install as it was.
 */
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { AGENT_PACKAGES, agentDir, type InstallableAgent } from "../config/agent-catalog.ts";

export interface InstallOptions {
  readonly dataDir: string;
  readonly agent: InstallableAgent;
  readonly registry: string;
  readonly execPath: string;
  readonly proxyEnv: Readonly<Record<string, string>>;
  /** Where bun's output goes (the command's stderr). */
  readonly log: (line: string) => void;
}

/** The install did not complete; the message says why, and the previous install is intact. */
export class AgentInstallError extends Error {
  override readonly name = "AgentInstallError";
}

/**
 * Bun's output is passed to `log` as it comes; only its last MAX_BUN_OUTPUT_CHARS characters are
 * kept (older output is dropped from the tail), to repeat in the error of a failed install.
 */
const MAX_BUN_OUTPUT_CHARS = 4000;
/** A `bun add` still running after this is killed and the install fails (a registry that stalls). */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** Forwards a stream to `log` line by line; resolves with its last MAX_BUN_OUTPUT_CHARS characters. */
async function pump(stream: ReadableStream<Uint8Array>, log: (line: string) => void): Promise<string> {
  const decoder = new TextDecoder();
  let pending = "";
  let tail = "";
  const emit = (text: string) => {
    for (const line of text.split("\n")) if (line.trim() !== "") log(line);
    tail = (tail + text).slice(-MAX_BUN_OUTPUT_CHARS);
  };
  const reader = stream.getReader();
  for (;;) {
    const { value: chunk, done } = await reader.read();
    if (done) break;
    pending += decoder.decode(chunk, { stream: true });
    const cut = pending.lastIndexOf("\n");
    if (cut >= 0) {
      emit(pending.slice(0, cut + 1));
      pending = pending.slice(cut + 1);
    }
    // A line longer than the tail is passed on in pieces rather than held whole.
    if (pending.length > MAX_BUN_OUTPUT_CHARS) {
      emit(pending);
      pending = "";
    }
  }
  emit(pending + decoder.decode());
  return tail;
}

export async function installAgent(options: InstallOptions): Promise<{ path: string; version: string }> {
  const pkg = AGENT_PACKAGES[options.agent];
  const dir = agentDir(options.dataDir, options.agent);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 }) ?? null;
  const staging = mkdtempSync(join(dir, ".install-"));
  try {
    writeFileSync(join(staging, "package.json"), `${JSON.stringify({ name: `svc-agent-${options.agent}`, private: true })}\n`);
    const scratch = join(staging, ".scratch");
    for (const sub of ["home", "tmp", "cache"]) mkdirSync(join(scratch, sub), { recursive: true });
    const proc = Bun.spawn(
      [options.execPath, "add", "--exact", "--ignore-scripts", "--no-progress", "--registry", options.registry, "--cwd", staging, `${pkg.name}@${pkg.version}`],
      {
        cwd: staging,
        env: {
          ...options.proxyEnv,
          BUN_BE_BUN: "1",
          HOME: join(scratch, "home"),
          USERPROFILE: join(scratch, "home"),
          TMPDIR: join(scratch, "tmp"),
          XDG_CACHE_HOME: join(scratch, "cache"),
          XDG_CONFIG_HOME: join(scratch, "home"),
          XDG_DATA_HOME: join(scratch, "home"),
          BUN_INSTALL: join(scratch, "home", ".bun"),
          BUN_INSTALL_CACHE_DIR: join(scratch, "cache", "bun"),
          NO_COLOR: "1",
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const timer = setTimeout(() => proc.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
    const [out, err, code] = await Promise.all([pump(proc.stdout, options.log), pump(proc.stderr, options.log), proc.exited]).finally(() => clearTimeout(timer));
    if (proc.signalCode !== null) throw new AgentInstallError(`bun add ${pkg.name}@${pkg.version} did not finish within ${INSTALL_TIMEOUT_MS / 60_000} minutes`);
    if (code !== 0) throw new AgentInstallError(`bun add ${pkg.name}@${pkg.version} failed (exit ${code}): ${`${out}${err}`.trim().slice(-MAX_BUN_OUTPUT_CHARS)}`);
    verifyLockfile(join(staging, "bun.lock"));
    const installed = verifyPackage(join(staging, "node_modules", pkg.name, "package.json"), pkg.name, pkg.version);
    rmSync(scratch, { recursive: true, force: true });
    switchTo(dir, staging);
    return { path: join(dir, "node_modules", pkg.entry(process.platform, process.arch)), version: installed };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (created !== null) removeEmptyUpTo(dir, created);
    throw err;
  }
}

/** Removes `dir` and its parents up to `top` (the first folder this install created), while empty. */
function removeEmptyUpTo(dir: string, top: string): void {
  for (let at = dir; ; at = dirname(at)) {
    try {
      rmdirSync(at);
    } catch {
      return; // not empty: something else lives there
    }
    if (at === top || dirname(at) === at) return;
  }
}

/** Every package the lockfile records must carry a sha512 integrity (bun.lock: `[id, registry, meta, integrity]`). */
export function verifyLockfile(file: string): void {
  let lock: { packages?: Record<string, unknown> };
  try {
    lock = Bun.JSONC.parse(readFileSync(file, "utf8")) as typeof lock;
  } catch (err) {
    throw new AgentInstallError(`the lockfile ${basename(file)} cannot be read: ${(err as Error).message}`);
  }
  const packages = Object.entries(lock.packages ?? {});
  if (packages.length === 0) throw new AgentInstallError("the lockfile records no package");
  for (const [key, entry] of packages) {
    const integrity = Array.isArray(entry) ? entry[3] : undefined;
    if (typeof integrity !== "string" || !/^sha512-[A-Za-z0-9+/]+={0,2}$/.test(integrity))
      throw new AgentInstallError(`the lockfile entry ${key} has no sha512 integrity; refusing the install`);
  }
}

/** The installed package must be the pinned one; returns its version. */
function verifyPackage(file: string, name: string, version: string): string {
  let manifest: { name?: unknown; version?: unknown };
  try {
    manifest = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new AgentInstallError(`${name} is not in the installed tree`);
  }
  if (manifest.name !== name || manifest.version !== version)
    throw new AgentInstallError(`the registry served ${String(manifest.name)}@${String(manifest.version)} for ${name}@${version}; refusing the install`);
  return version;
}

/**
 * Points `<dir>/node_modules` at the staging tree: a new relative symbolic link renamed over the
 * old one (rename is atomic), then the tree the old link named is removed.
 */
function switchTo(dir: string, staging: string): void {
  const link = join(dir, "node_modules");
  let previous: string | null = null;
  try {
    previous = readlinkSync(link);
  } catch {
    // first install (or a foreign node_modules, which the rename below refuses to replace)
  }
  const next = join(dir, `.link-${basename(staging)}`);
  symlinkSync(join(basename(staging), "node_modules"), next);
  try {
    renameSync(next, link);
  } catch (err) {
    rmSync(next, { force: true });
    throw new AgentInstallError(`cannot switch ${link} to the new install: ${(err as Error).message}`);
  }
  const old = previous?.split(/[\\/]/)[0];
  if (old && old.startsWith(".install-") && old !== basename(staging)) rmSync(join(dir, old), { recursive: true, force: true });
}
