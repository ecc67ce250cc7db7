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
 * the install is refused, and so it is when the profile's entry is missing from the tree. Only
 * then is `node_modules` switched to the new tree, by renaming a symbolic link over it (atomic);
 * the previous tree is kept for agents still running from it (`install-dir.ts` says which
 * trees live in the agent directory, and how stale ones are swept). A failed or interrupted install
 * removes its staging directory and leaves the previous install as it was; `bun add` runs under a
 * watchdog that ends it when this process dies, however it dies (`install-watchdog.ts`).
 */
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { AGENT_PACKAGES, agentDir, type InstallableAgent } from "../config/agent-catalog.ts";
import { createStaging, openAgentDir, removeCreated, sweepTrees, switchTo } from "./install-dir.ts";
import { AgentInstallError } from "./install-error.ts";
import { watchedCommand } from "./install-watchdog.ts";

export interface InstallOptions {
  readonly dataDir: string;
  readonly agent: InstallableAgent;
  readonly registry: string;
  readonly execPath: string;
  readonly proxyEnv: Readonly<Record<string, string>>;
  /** Where bun's output goes (the command's stderr). */
  readonly log: (line: string) => void;
  /** Aborting ends the install: bun add is ended and the staging tree removed. */
  readonly signal?: AbortSignal;
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
  const entry = pkg.entry(process.platform, process.arch);
  let created: string[] = [];
  let staging: string | null = null;
  try {
    created = openAgentDir(options.dataDir, dirname(dir), dir);
    sweepTrees(dir);
    staging = createStaging(dir);
    writeFileSync(join(staging, "package.json"), `${JSON.stringify({ name: `svc-agent-${options.agent}`, private: true })}\n`);
    const scratch = join(staging, ".scratch");
    for (const sub of ["home", "tmp", "cache"]) mkdirSync(join(scratch, sub), { recursive: true });
    await bunAdd(options, `${pkg.name}@${pkg.version}`, staging, scratch);
    verifyLockfile(join(staging, "bun.lock"));
    const installed = verifyPackage(join(staging, "node_modules", pkg.name, "package.json"), pkg.name, pkg.version);
    verifyEntry(join(staging, "node_modules", entry), entry, pkg.runtime === "native");
    rmSync(scratch, { recursive: true, force: true });
    switchTo(dir, staging);
    return { path: join(dir, "node_modules", entry), version: installed };
  } catch (err) {
    if (staging !== null) rmSync(staging, { recursive: true, force: true });
    removeCreated(created);
    // A file system error (ENOSPC, ENOTDIR, EACCES…) is reported in one line like the others.
    throw err instanceof AgentInstallError ? err : new AgentInstallError((err as Error).message);
  }
}

/**
 * Runs `bun add` in `staging` under the watchdog (`install-watchdog.ts`: it does not outlive this
 * process), forwarding its output to `log`. It fails after INSTALL_TIMEOUT_MS, or when
 * `options.signal` aborts (the command got SIGTERM or SIGINT); either way bun add is ended.
 */
async function bunAdd(options: InstallOptions, spec: string, staging: string, scratch: string): Promise<void> {
  const command = watchedCommand(options.execPath, [options.execPath, "add", "--exact", "--ignore-scripts", "--no-progress", "--registry", options.registry, "--cwd", staging, spec]);
  const proc = Bun.spawn(command.argv, {
    cwd: staging,
    env: {
      ...options.proxyEnv,
      ...command.env,
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
  });
  let ended: string | null = null;
  const end = (why: string) => {
    ended ??= why;
    proc.kill("SIGTERM"); // the watchdog SIGKILLs bun add and exits
  };
  const timer = setTimeout(end, INSTALL_TIMEOUT_MS, `bun add ${spec} did not finish within ${INSTALL_TIMEOUT_MS / 60_000} minutes`);
  const abort = () => end("interrupted");
  options.signal?.addEventListener("abort", abort);
  if (options.signal?.aborted) abort();
  try {
    const [out, err, code] = await Promise.all([pump(proc.stdout, options.log), pump(proc.stderr, options.log), proc.exited]);
    if (ended !== null) throw new AgentInstallError(ended);
    if (code !== 0) throw new AgentInstallError(`bun add ${spec} failed (exit ${code}): ${`${out}${err}`.trim().slice(-MAX_BUN_OUTPUT_CHARS)}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
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

/**
 * The profile's entry must be in the installed tree (bun takes a failed optional dependency, such
 * as opencode's platform binary, for a warning): a regular file, executable for a native agent.
 */
function verifyEntry(path: string, relative: string, native: boolean): void {
  try {
    if (statSync(path).isFile()) {
      if (native) accessSync(path, constants.X_OK);
      return;
    }
  } catch {
    // refused below
  }
  throw new AgentInstallError(`the installed tree has no ${native ? "executable " : ""}${relative}; refusing the install`);
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
