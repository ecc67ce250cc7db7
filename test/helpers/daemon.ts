/**
 * Test daemons on port 0.
 * - `startDaemon(args)`: in-process (createDaemon), for fast HTTP-level tests.
 * - `spawnDaemon(args)`: a real `svc serve` child process (source or compiled binary), for boot,
 *   signal and process-level tests. Its stdout/stderr are collected; dispose kills it and waits.
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { resolveConfig, type Config } from "../../src/config/config.ts";
import { createDaemon, type Daemon } from "../../src/daemon.ts";
import { Logger, type LogOutput } from "../../src/logging/logger.ts";
import { tempDir, type TempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const MAIN_TS = join(REPO_ROOT, "src", "main.ts");

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
  readonly daemon: Daemon;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Use this workspace instead of a fresh temp dir. */
  workspace?: string;
}

/**
 * The config of an in-process test server (port 0, `workspace` as cwd and `--workspace`, debug logs)
 * and a logger whose lines are kept in `logs`.
 */
export function testServerConfig(workspace: string, args: string[], env: Record<string, string | undefined> = {}): { config: Config; logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const output: LogOutput = { write: (chunk) => void logs.push(...chunk.split("\n").filter(Boolean)) };
  const config = resolveConfig({
    args: ["--port", "0", "--workspace", workspace, "--log-level", "debug", ...args],
    env: { SVC_HOME: process.env.SVC_HOME, ...env },
    cwd: workspace,
    version: "0.0.0-test",
    selfEntry: MAIN_TS,
  });
  return { config, logger: new Logger(config.log.level, config.log.format, output), logs };
}

export async function startDaemon(args: string[] = [], options: StartOptions = {}): Promise<TestDaemon> {
  const dir: TempDir | null = options.workspace ? null : tempDir("svc-ws-");
  const workspace = options.workspace ?? dir!.path;
  const { config, logger, logs } = testServerConfig(workspace, args, options.env);
  const daemon = createDaemon(config, { logger });
  return {
    daemon,
    config,
    url: daemon.url,
    port: daemon.port,
    workspace,
    logs,
    fetch: (path, init) => fetch(daemon.url + path, init),
    async [Symbol.asyncDispose]() {
      await daemon.stop(1000);
      await dir?.[Symbol.asyncDispose]();
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

function collect(stream: ReadableStream<Uint8Array>, into: { text: string }) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      into.text += decoder.decode(value, { stream: true });
    }
  })();
}

export interface SvcOptions {
  /** Added to the test process's environment. */
  env?: Record<string, string | undefined>;
  /** The command to run; defaults to `[bun, src/main.ts]`. */
  cmd?: string[];
  cwd?: string;
}

/** Starts `svc args…` with stdout and stderr piped. */
function spawnSvc(args: string[], options: SvcOptions) {
  return Bun.spawn([...(options.cmd ?? [process.execPath, MAIN_TS]), ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Runs `svc` as a child. Resolves once it prints its URL. */
export async function spawnDaemon(args: string[], options: SvcOptions & { timeoutMs?: number } = {}): Promise<SpawnedDaemon> {
  const out = { text: "" };
  const err = { text: "" };
  const proc = spawnSvc(args, options);
  collect(proc.stdout, out);
  collect(proc.stderr, err);
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
