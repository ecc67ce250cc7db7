/**
 * The servers under test and how to start one: `svc serve` (compiled binary or `bun src/main.ts`,
 * always `--port 0`, a temp workspace and a temp SVC_HOME) and the bare compiled `Bun.serve` baseline.
 * `launch` spawns one and resolves once it has printed `listening on <url>` on stdout.
 */
import type { Subprocess } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir, spawnTracked, stopProcess } from "./procs.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
const MAIN_TS = join(REPO_ROOT, "src", "main.ts");

/** A server that has not printed its URL by then is taken as broken. */
const LAUNCH_TIMEOUT_MS = 15_000;

export interface ServerSpec {
  readonly name: string;
  readonly cmd: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** A file for its stderr (the access log at the default level), or null for /dev/null. */
  readonly stderrPath: string | null;
}

export interface Launched {
  readonly proc: Subprocess;
  readonly url: string;
  /** `performance.now()` just before the spawn. */
  readonly spawnedAt: number;
  /** `performance.now()` when the listening line had been read. */
  readonly listeningAt: number;
}

/** The environment a server gets: ours without the daemon's own variables or any token. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith("SVC_") && !/(_TOKEN|_API_KEY|_SECRET)$/.test(name)) env[name] = value;
  return env;
}

/** How `svc` is run: the compiled binary, or the sources under the bench's own Bun. */
export function svcCommand(binary: string | null): readonly string[] {
  return binary === null ? [process.execPath, MAIN_TS] : [binary];
}

/** A server to start afresh for each run: its name in the report and how to make its spec. */
export interface ServerChoice {
  readonly name: string;
  /** Each call gives new scratch directories (workspace, SVC_HOME, log). */
  readonly spec: () => ServerSpec;
}

export function svcServer(name: string, command: readonly string[], options: { args?: readonly string[]; stderr: "file" | "null" }): ServerChoice {
  return {
    name,
    spec: () => ({
      name,
      cmd: [...command, "serve", "--port", "0", "--workspace", scratchDir("ws"), ...(options.args ?? [])],
      env: { ...cleanEnv(), SVC_HOME: scratchDir("home") },
      stderrPath: options.stderr === "file" ? join(scratchDir("log"), "stderr.log") : null,
    }),
  };
}

export const BARE_NAME = "bare compiled Bun.serve (baseline)";
/** The headline server: the targets speak of the compiled binary at the default log level. */
export const SVC_BINARY = "svc (binary)";
/** The `--baseline` binary, measured beside the headline one for a before/after comparison. */
export const SVC_BASELINE = "svc (baseline binary)";

/** The compiled bare server (`lib/bare-binaries.ts`). */
export function bareServer(binary: string, options: { stderr: "file" | "null" }): ServerChoice {
  return {
    name: BARE_NAME,
    spec: () => ({
      name: BARE_NAME,
      cmd: [binary],
      env: cleanEnv(),
      stderrPath: options.stderr === "file" ? join(scratchDir("log"), "stderr.log") : null,
    }),
  };
}

function stderrTail(spec: ServerSpec): string {
  if (spec.stderrPath === null || !existsSync(spec.stderrPath)) return "(stderr not kept)";
  return readFileSync(spec.stderrPath, "utf8").slice(-2000);
}

/** Reads stdout until the listening line, then keeps draining it so the pipe never fills. */
async function readUrl(stdout: ReadableStream<Uint8Array>): Promise<string | null> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return null;
    text += decoder.decode(value, { stream: true });
    const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    if (url !== undefined) {
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return url;
    }
  }
}

export async function launch(spec: ServerSpec): Promise<Launched> {
  const spawnedAt = performance.now();
  const proc = spawnTracked([...spec.cmd], {
    env: { ...spec.env },
    stdout: "pipe",
    stderr: spec.stderrPath === null ? "ignore" : Bun.file(spec.stderrPath),
  });
  let timer: Timer | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(resolve, LAUNCH_TIMEOUT_MS, "timeout")));
  const url = await Promise.race([readUrl(proc.stdout), timeout]);
  clearTimeout(timer);
  const listeningAt = performance.now();
  if (url === null || url === "timeout") {
    await stopProcess(proc);
    const why = url === null ? `exited with ${proc.exitCode ?? proc.signalCode}` : `printed no URL within ${LAUNCH_TIMEOUT_MS} ms`;
    throw new Error(`${spec.name} ${why}: ${spec.cmd.join(" ")}\n${stderrTail(spec)}`);
  }
  return { proc, url, spawnedAt, listeningAt };
}
