/**
 * Test daemons on port 0.
 * - `startDaemon(args)`: the daemon the run targets (`test-target.ts`): in process (createDaemon)
 *   by default, for fast HTTP-level tests; the compiled binary as a child under
 *   `SVC_TEST_TARGET=binary`, with the same interface for HTTP use. `d.daemon` (the in-process
 *   internals) exists only in process; a test that reaches for it cannot run against the binary.
 * Both put their daemon under the API contract (`contract.ts`): every response `d.fetch` receives
 * is checked against the daemon's declared schemas.
 * - `spawnDaemon(args)`: a real `svc serve` child process (the target's command unless `cmd` says
 *   otherwise), for boot, signal and process-level tests. Its stdout/stderr are collected; dispose
 *   kills it and waits.
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { resolveConfig, type Config } from "../../src/config/config.ts";
import { createDaemon, type Daemon } from "../../src/daemon.ts";
import { Logger, type LogOutput } from "../../src/logging/logger.ts";
import { contractFetch, underContract } from "./contract.ts";
import { testTarget } from "./test-target.ts";
import { tempDir, type TempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const MAIN_TS = join(REPO_ROOT, "src", "main.ts");

/** The first script argument a compiled binary sees (its embedded entry). */
const COMPILED_ENTRY = "/$bunfs/root/svc";
/** How long a signalled daemon may take to exit: its own shutdown deadline (5 s) plus slack. */
const STOP_BOUND_MS = 6000;

/** An in-process server on port 0 (a daemon, or the front door around a test app). */
export interface TestServer extends AsyncDisposable {
  readonly config: Config;
  readonly url: string;
  readonly port: number;
  readonly workspace: string;
  /** Lines the server logged so far. */
  readonly logs: string[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export interface TestDaemon extends TestServer {
  /** The in-process daemon; throws when the target is the compiled binary. */
  readonly daemon: Daemon;
  /** The daemon's process: this one in process, else the child's. */
  readonly pid: number;
  /** Stops the daemon and its agent children (idempotent); dispose also removes its temp dirs. */
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Use this workspace instead of a fresh temp dir. */
  workspace?: string;
}

/** The flags every test daemon gets before the test's own. */
const baseArgs = (workspace: string, args: string[]) => ["--port", "0", "--workspace", workspace, "--log-level", "debug", ...args];
/** The environment a test daemon's configuration is read from. */
/**
 * The test's data dir, and a release location on loopback where nothing listens: a test that reaches
 * the update routes gets a quick refusal, never a request to the real release host.
 */
const baseEnv = (env: Record<string, string | undefined>) => ({ SVC_HOME: process.env.SVC_HOME, SVC_RELEASE_URL: "http://127.0.0.1:9/releases", ...env });

/**
 * The config of an in-process test server (port 0, `workspace` as cwd and `--workspace`, debug logs)
 * and a logger whose lines are kept in `logs`.
 */
export function testServerConfig(workspace: string, args: string[], env: Record<string, string | undefined> = {}): { config: Config; logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const output: LogOutput = { write: (chunk) => void logs.push(...chunk.split("\n").filter(Boolean)) };
  const config = resolveConfig({ args: baseArgs(workspace, args), env: baseEnv(env), cwd: workspace, version: "0.0.0-test", selfEntry: MAIN_TS });
  return { config, logger: new Logger(config.log.level, config.log.format, output), logs };
}

export async function startDaemon(args: string[] = [], options: StartOptions = {}): Promise<TestDaemon> {
  const target = testTarget();
  return target.kind === "binary" ? startBinaryDaemon(target.path, args, options) : startInProcessDaemon(args, options);
}

/** The sources' daemon in this process, whatever the run targets. */
export async function startInProcessDaemon(args: string[] = [], options: StartOptions = {}): Promise<TestDaemon> {
  const dir: TempDir | null = options.workspace ? null : tempDir("svc-ws-");
  const workspace = options.workspace ?? dir!.path;
  const { config, logger, logs } = testServerConfig(workspace, args, options.env);
  const daemon = createDaemon(config, { logger });
  const offContract = underContract(daemon.url);
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= daemon.stop(1000));
  return {
    daemon,
    pid: process.pid,
    config,
    url: daemon.url,
    port: daemon.port,
    workspace,
    logs,
    fetch: (path, init) => contractFetch(daemon.url + path, init),
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      offContract();
      await dir?.[Symbol.asyncDispose]();
    },
  };
}

/**
 * `d.daemon` of a binary daemon: any use throws (a plain value rather than a getter, so that helpers
 * which spread a TestDaemon into their own object do not trip it).
 */
const IN_PROCESS_ONLY = new Proxy({} as Daemon, {
  get() {
    throw new Error("d.daemon is the in-process daemon: this test cannot run against the compiled binary (SVC_TEST_TARGET=binary)");
  },
});

const versions = new Map<string, string>();
/** What `<cmd> --version` prints, asked once per command. */
function versionOf(cmd: readonly string[]): string {
  const key = cmd.join("\0");
  let version = versions.get(key);
  if (version === undefined) {
    const run = Bun.spawnSync([...cmd, "--version"], { stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`${cmd.join(" ")} --version exited ${run.exitCode}: ${run.stderr.toString()}`);
    version = run.stdout.toString().trim();
    versions.set(key, version);
  }
  return version;
}

/** The compiled binary at `binary` as a child (see startChildDaemon). */
export function startBinaryDaemon(binary: string, args: string[] = [], options: StartOptions = {}): Promise<TestDaemon> {
  return startChildDaemon([binary], args, options);
}

/**
 * `svc` run by `cmd` (the compiled binary, or `[bun, src/main.ts]`) as a child, started like the
 * in-process daemon (same flags, the workspace as cwd, `SVC_HOME` and `env` over the test's
 * environment). `config` is what the child resolves from those inputs (resolved here as well, so an
 * invalid flag throws the same BootError); `logs` are its stderr lines. Stopping sends SIGTERM and
 * fails if the daemon does not exit 0 in time, or if it had already exited by itself.
 */
export async function startChildDaemon(cmd: readonly string[], args: string[] = [], options: StartOptions = {}): Promise<TestDaemon> {
  const dir: TempDir | null = options.workspace ? null : tempDir("svc-ws-");
  const workspace = options.workspace ?? dir!.path;
  const argv = baseArgs(workspace, args);
  const env = baseEnv(options.env ?? {});
  const logs: string[] = [];
  let child: SpawnedDaemon;
  let config: Config;
  try {
    const selfEntry = cmd.length === 1 ? COMPILED_ENTRY : cmd[1]!;
    config = resolveConfig({ args: argv, env, cwd: workspace, version: versionOf(cmd), selfEntry, execPath: cmd[0]! });
    child = await spawnDaemon(argv, { cmd: [...cmd], cwd: workspace, env, onStderrLine: (line) => void (line && logs.push(line)) });
  } catch (err) {
    await dir?.[Symbol.asyncDispose]();
    throw err;
  }
  const { proc } = child;
  const port = Number(new URL(child.url).port);
  const offContract = underContract(child.url);
  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      const tail = () => child.stderr().slice(-2000);
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`the daemon exited by itself during the test (${proc.exitCode ?? proc.signalCode}):\n${tail()}`);
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(STOP_BOUND_MS).then(() => false)]);
      if (!exited) {
        proc.kill("SIGKILL");
        await proc.exited;
        throw new Error(`the daemon did not exit within ${STOP_BOUND_MS} ms of SIGTERM:\n${tail()}`);
      }
      if (proc.exitCode !== 0) throw new Error(`the daemon exited ${proc.exitCode ?? proc.signalCode} on SIGTERM:\n${tail()}`);
    })());
  return {
    daemon: IN_PROCESS_ONLY,
    pid: proc.pid,
    config,
    url: child.url,
    port,
    workspace,
    logs,
    fetch: (path, init) => contractFetch(child.url + path, init),
    stop,
    async [Symbol.asyncDispose]() {
      try {
        await stop();
      } finally {
        offContract();
        await child[Symbol.asyncDispose]();
        await dir?.[Symbol.asyncDispose]();
      }
    },
  };
}

/** How many event streams the daemon is serving (`/daemon/status` → `runtime.transport.restSseActive`). */
export async function activeSseStreams(d: TestServer): Promise<number> {
  const status = (await (await d.fetch("/daemon/status")).json()) as { runtime: { transport: { restSseActive: number } } };
  return status.runtime.transport.restSseActive;
}

export interface SpawnedDaemon extends AsyncDisposable {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Appends what `stream` carries to `into.text`, and hands each complete line to `onLine`. */
function collect(stream: ReadableStream<Uint8Array>, into: { text: string }, onLine?: (line: string) => void) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let partial = "";
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const text = decoder.decode(value, { stream: true });
      into.text += text;
      if (onLine === undefined) continue;
      const lines = (partial + text).split("\n");
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    }
  })();
}

export interface SvcOptions {
  /** Added to the test process's environment (an `undefined` value removes the variable). */
  env?: Record<string, string | undefined>;
  /** The command to run; defaults to the target's: `[bun, src/main.ts]`, or the compiled binary. */
  cmd?: string[];
  cwd?: string;
}

/** The command that runs `svc` for the target of this test run. */
export function svcCommand(): string[] {
  const target = testTarget();
  return target.kind === "binary" ? [target.path] : [process.execPath, MAIN_TS];
}

/** Starts `svc args…` with stdout and stderr piped. */
function spawnSvc(args: string[], options: SvcOptions) {
  const env = Object.fromEntries(Object.entries({ ...process.env, ...options.env }).filter((e): e is [string, string] => e[1] !== undefined));
  return Bun.spawn([...(options.cmd ?? svcCommand()), ...args], {
    cwd: options.cwd,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

export interface SpawnOptions extends SvcOptions {
  timeoutMs?: number;
  /** Called with each complete line the daemon writes to stderr (its log). */
  onStderrLine?: (line: string) => void;
}

/** Runs `svc` as a child. Resolves once it prints its URL. */
export async function spawnDaemon(args: string[], options: SpawnOptions = {}): Promise<SpawnedDaemon> {
  const out = { text: "" };
  const err = { text: "" };
  const proc = spawnSvc(args, options);
  collect(proc.stdout, out);
  collect(proc.stderr, err, options.onStderrLine);
  const dispose = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await proc.exited;
  };
  try {
    const url = await until(
      () => {
        if (proc.exitCode !== null) throw new Error(`svc exited ${proc.exitCode} before listening: ${err.text}`);
        return /listening on (http:\/\/\S+)/.exec(out.text)?.[1];
      },
      options.timeoutMs ?? 10_000,
      "the daemon to print its URL",
    );
    return {
      proc,
      url,
      stdout: () => out.text,
      stderr: () => err.text,
      fetch: (path, init) => fetch(url + path, init),
      [Symbol.asyncDispose]: dispose,
    };
  } catch (e) {
    await dispose();
    throw e;
  }
}

/** Runs `svc` to completion (for boot failures and --version). */
export async function runSvc(args: string[], options: SvcOptions = {}) {
  const proc = spawnSvc(args, options);
  const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { stdout, stderr, exitCode };
}
