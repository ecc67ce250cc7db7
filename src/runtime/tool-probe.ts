/**
 * Finds optional host tools (ripgrep, git, npm) on PATH and reads their versions, once per daemon
 * (cached; each probe is bounded by PROBE_TIMEOUT_MS so a wedged tool cannot hang a status route).
 * These are tools the agent may use; the agent child itself is never looked up on PATH.
 */
export const PROBE_TIMEOUT_MS = 2000;

export interface ToolProbe {
  readonly name: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
}

async function versionOf(path: string): Promise<{ version: string | null; error?: string }> {
  try {
    const proc = Bun.spawn([path, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    clearTimeout(timer);
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
        return { name: name!, path, ...(await versionOf(path)) };
      }),
    );
    return this.cached;
  }
}
