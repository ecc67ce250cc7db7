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

export interface TestDaemon extends AsyncDisposable {
  readonly daemon: Daemon;
  readonly config: Config;
  readonly url: string;
  readonly port: number;
  readonly workspace: string;
  /** Lines the daemon logged so far. */
  readonly logs: string[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Use this workspace instead of a fresh temp dir. */
  workspace?: string;
}

export async function startDaemon(args: string[] = [], options: StartOptions = {}): Promise<TestDaemon> {
  const dir: TempDir | null = options.workspace ? null : tempDir("svc-ws-");
  const workspace = options.workspace ?? dir!.path;
  const logs: string[] = [];
  const output: LogOutput = { write: (chunk) => void logs.push(...chunk.split("\n").filter(Boolean)) };
  const config = resolveConfig({
    args: ["--port", "0", "--workspace", workspace, "--log-level", "debug", ...args],
    env: { SVC_HOME: process.env.SVC_HOME, ...options.env },
    cwd: workspace,
    version: "0.0.0-test",
    selfEntry: MAIN_TS,
  });
  const daemon = createDaemon(config, { logger: new Logger(config.log.level, config.log.format, output) });
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

/** Runs `svc` as a child: `cmd` defaults to `[bun, src/main.ts]`. Resolves once it prints its URL. */
export async function spawnDaemon(
  args: string[],
  options: { env?: Record<string, string | undefined>; cmd?: string[]; cwd?: string; timeoutMs?: number } = {},
): Promise<SpawnedDaemon> {
  const out = { text: "" };
  const err = { text: "" };
  const proc = Bun.spawn([...(options.cmd ?? [process.execPath, MAIN_TS]), ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
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
export async function runSvc(args: string[], options: { env?: Record<string, string | undefined>; cmd?: string[]; cwd?: string } = {}) {
  const proc = Bun.spawn([...(options.cmd ?? [process.execPath, MAIN_TS]), ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { stdout, stderr, exitCode };
}
