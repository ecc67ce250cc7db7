/**
 * Finds optional host tools (ripgrep, git, npm) on PATH and reads their versions, once per daemon
 * (cached). These are tools the agent may use; the agent child itself is never looked up on PATH.
 *
 * A probe runs with PATH as its only variable (it needs nothing else, and must not see the daemon's
 * token) and is bounded by PROBE_TIMEOUT_MS as a whole: it is SIGKILLed if it has not exited by
 * then, and its output is read while it runs, until it exits (plus PROBE_DRAIN_MS for the last
 * bytes), and at most MAX_PROBE_OUTPUT_BYTES. A process the tool left behind holding its stdout therefore cannot
 * hang a status route; the probe stays in the daemon's session and such a leftover is not chased.
 */
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

async function versionOf(path: string, pathEnv: string | undefined): Promise<{ version: string | null; error?: string }> {
  try {
    const proc = Bun.spawn([path, "--version"], { env: pathEnv === undefined ? {} : { PATH: pathEnv }, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
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

  constructor(private readonly pathEnv: string | undefined) {}

  probe(): Promise<ToolProbe[]> {
    this.cached ??= Promise.all(
      [
        ["ripgrep", "rg"],
        ["git", "git"],
        ["npm", "npm"],
      ].map(async ([name, bin]) => {
        const path = Bun.which(bin!, this.pathEnv === undefined ? {} : { PATH: this.pathEnv });
        if (path === null) return { name: name!, path: null, version: null };
        return { name: name!, path, ...(await versionOf(path, this.pathEnv)) };
      }),
    );
    return this.cached;
  }
}
