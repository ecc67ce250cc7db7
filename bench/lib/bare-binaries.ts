/**
 * The floor svc is measured against, built in the same run with the same Bun: `bun build --compile`
 * of a bare `Bun.serve` that answers "ok" (`servers/bare-serve.ts`), of a binary that prints a
 * version (`servers/bare-version.ts`), and of a bare SSE fan-out (`servers/bare-fanout.ts`), all at once.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { scratchDir, spawnTracked } from "./procs.ts";
import { REPO_ROOT } from "./servers.ts";

export interface BareBinaries {
  readonly serve: string;
  readonly version: string;
  readonly fanout: string;
  /** Size of the bare compiled server: the runtime's share of any compiled binary. */
  readonly serveBytes: number;
}

async function compile(source: string, outfile: string): Promise<void> {
  const cmd = [process.execPath, "build", "--compile", "--minify", join(REPO_ROOT, "bench", "servers", source), "--outfile", outfile];
  const proc = spawnTracked(cmd, { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`compiling the baseline failed (exit ${code}): ${cmd.join(" ")}\n${out}${err}`);
}

export async function buildBareBinaries(): Promise<BareBinaries> {
  const dir = scratchDir("bare");
  const serve = join(dir, "bare-serve");
  const version = join(dir, "bare-version");
  const fanout = join(dir, "bare-fanout");
  await Promise.all([compile("bare-serve.ts", serve), compile("bare-version.ts", version), compile("bare-fanout.ts", fanout)]);
  return { serve, version, fanout, serveBytes: statSync(serve).size };
}
