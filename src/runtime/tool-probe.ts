/**
 * Finds optional host tools (ripgrep, git, npm) on PATH and reads their versions, once per daemon
 * (cached). These are tools the agent may use; the agent child itself is never looked up on PATH.
 * Only the user's tools are run: PATH's absolute entries are searched, and a tool found inside the
 * workspace is reported refused, never run (`workspace/host-executable.ts`).
 *
 * A probe runs with PATH as its only variable (it needs nothing else, and must not see the daemon's
 * token), reduced to the entries outside the workspace (`hostSearchPath`: an `npm` script's
 * `env node` must not find a workspace `node`), and is bounded by PROBE_TIMEOUT_MS as a whole: it is
 * SIGKILLed if it has not exited by then, and its output is read while it runs, until it exits
 * (plus PROBE_DRAIN_MS for the last bytes), and at most MAX_PROBE_OUTPUT_BYTES. A process the tool
 * left behind holding its stdout therefore cannot hang a status route; the probe stays in the
 * daemon's session and such a leftover is not chased.
 */
import { findHostExecutable, hostSearchPath } from "../workspace/host-executable.ts";

export const PROBE_TIMEOUT_MS = 2000;
/** After the probe exits, how long its stdout may take to deliver what is still in the pipe. */
const PROBE_DRAIN_MS = 100;
/** Output read from one probe; the rest is not read. */
const MAX_PROBE_OUTPUT_BYTES = 64 * 1024;

export interface ToolProbe {
  readonly name: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
  /** Why the tool PATH names was not run: it lies inside the workspace (found at `path`, really at `real`); `path` above is then null. */
  readonly refused?: { readonly reason: "inside_workspace"; readonly path: string; readonly real: string };
  /** Not found, and PATH had empty or relative entries, which are not searched. */
  readonly skippedRelative?: boolean;
}

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(resolve, ms, value).unref());

/** Reads `stream` until EOF, `until` settles, or MAX_PROBE_OUTPUT_BYTES; then lets go of it. */
async function readBounded(stream: ReadableStream<Uint8Array>, until: Promise<unknown>): Promise<string> {
  const reader = stream.getReader();
  const stop = until.then(() => null);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < MAX_PROBE_OUTPUT_BYTES) {
      const next = await Promise.race([reader.read(), stop]);
      if (next === null || next.done) break;
      chunks.push(next.value);
      bytes += next.value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_PROBE_OUTPUT_BYTES));
}

async function versionOf(path: string, searchPath: string): Promise<{ version: string | null; error?: string }> {
  try {
    const proc = Bun.spawn([path, "--version"], { env: searchPath === "" ? {} : { PATH: searchPath }, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const exit = Promise.race([proc.exited, after(PROBE_TIMEOUT_MS, null)]);
    const [out, code] = await Promise.all([readBounded(proc.stdout, exit.then((c) => (c === null ? null : after(PROBE_DRAIN_MS, null)))), exit]);
    if (code === null) {
      proc.kill("SIGKILL");
      return { version: null, error: `no answer within ${PROBE_TIMEOUT_MS} ms` };
    }
    if (code !== 0) return { version: null, error: `exited with ${code}` };
    return { version: /\d+\.\d+(\.\d+)?/.exec(out)?.[0] ?? (out.trim().split("\n")[0]?.slice(0, 80) || null) };
  } catch (err) {
    return { version: null, error: (err as Error).message };
  }
}

export class ToolProber {
  private cached: Promise<ToolProbe[]> | null = null;

  /** `pathEnv`: the daemon's PATH; `workspace`: the canonical workspace, whose programs are never run. */
  constructor(
    private readonly pathEnv: string | undefined,
    private readonly workspace: string,
  ) {}

  probe(): Promise<ToolProbe[]> {
    const searchPath = this.pathEnv ?? "";
    this.cached ??= Promise.all(
      [
        ["ripgrep", "rg"],
        ["git", "git"],
        ["npm", "npm"],
      ].map(async ([name, bin]): Promise<ToolProbe> => {
        const found = findHostExecutable(bin!, searchPath, this.workspace);
        if (found.kind === "inside_workspace") return { name: name!, path: null, version: null, refused: { reason: "inside_workspace", path: found.path, real: found.real } };
        if (found.kind === "missing") return { name: name!, path: null, version: null, ...(found.skippedRelative ? { skippedRelative: true } : {}) };
        return { name: name!, path: found.path, ...(await versionOf(found.path, hostSearchPath(searchPath, this.workspace))) };
      }),
    );
    return this.cached;
  }
}
