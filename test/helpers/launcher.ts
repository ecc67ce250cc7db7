/**
 * Launcher-side helpers: start `svc serve --ready-json` as a launcher would (the target's command:
 * sources or the compiled binary), read its one stdout line, and run `svc discover`.
 *
 *   await using d = await spawnReady(["--workspace", ws.path], { env: { SVC_HOME: home } });
 *   d.ready.url; d.stdout(); d.proc.kill("SIGTERM");
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { runSvc, svcCommand } from "./daemon.ts";
import { until } from "./until.ts";

/** What `--ready-json` prints. */
export interface ReadyLine {
  ready: true;
  url: string;
  port: number;
  pid: number;
  version: string;
  workspace: string;
  auth: "none" | "bearer";
  /** With `--token-file`: the file holding the token. */
  tokenFile?: string;
}

/** What a discovery file holds and `svc discover` prints. */
export interface DiscoveryRecord extends ReadyLine {
  startedAt: string;
  pidStartTime: string | null;
}

export interface ReadyDaemon extends AsyncDisposable {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly ready: ReadyLine;
  /** Everything the daemon wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code (SIGKILL and a throw when it takes longer than `boundMs`). */
  terminate(boundMs?: number): Promise<number | null>;
}

/** How long a SIGTERMed idle daemon may take to exit: its own 5 s shutdown deadline plus slack. */
const TERM_BOUND_MS = 6000;

/** Appends what `stream` carries to `into.text` until it ends. */
function drain(stream: ReadableStream<Uint8Array>, into: { text: string }): void {
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

/** Environment for a launcher test: `SVC_HOME` and the rest as given (an `undefined` removes a variable). */
export type LaunchEnv = Record<string, string | undefined>;

/**
 * Starts `svc serve --port 0 --ready-json …args` and resolves with the parsed line once a complete
 * line is on stdout (rejects if the process exits first).
 */
export async function spawnReady(args: string[], options: { env?: LaunchEnv; cwd?: string; cmd?: string[] } = {}): Promise<ReadyDaemon> {
  const env = Object.fromEntries(Object.entries({ ...process.env, ...options.env }).filter((e): e is [string, string] => e[1] !== undefined));
  const proc = Bun.spawn([...(options.cmd ?? svcCommand()), "serve", "--port", "0", "--ready-json", ...args], {
    cwd: options.cwd,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = { text: "" };
  const err = { text: "" };
  drain(proc.stdout, out);
  drain(proc.stderr, err);
  const kill = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await proc.exited;
  };
  let line: string;
  try {
    line = await until(
      () => {
        const end = out.text.indexOf("\n");
        if (end !== -1) return out.text.slice(0, end);
        if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`svc exited ${proc.exitCode ?? proc.signalCode} before its ready line: ${err.text}`);
        return null;
      },
      15_000,
      "the ready line",
    );
  } catch (e) {
    await kill();
    throw e;
  }
  return {
    proc,
    ready: JSON.parse(line) as ReadyLine,
    stdout: () => out.text,
    stderr: () => err.text,
    async terminate(boundMs = TERM_BOUND_MS) {
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(boundMs).then(() => false)]);
      if (!exited) {
        await kill();
        throw new Error(`the daemon did not exit within ${boundMs} ms of SIGTERM:\n${err.text.slice(-2000)}`);
      }
      return proc.exitCode;
    },
    [Symbol.asyncDispose]: kill,
  };
}

/** `svc discover …args` to completion. */
export async function discover(args: string[], options: { env?: LaunchEnv; cwd?: string } = {}) {
  const result = await runSvc(["discover", ...args], options);
  return { ...result, record: result.exitCode === 0 && result.stdout.startsWith("{") ? (JSON.parse(result.stdout) as DiscoveryRecord) : null };
}

/** The discovery folder under a data dir (`$SVC_HOME/daemons`). */
export const discoveryFolder = (home: string) => join(home, "daemons");
