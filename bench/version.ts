/**
 * `svc --version`: spawn → exit with its output read, against a bare compiled binary that prints a
 * version. Runs interleaved, one untimed run of each first (the executables in the page cache).
 */
import { spawnTracked } from "./lib/procs.ts";
import { median } from "./lib/stats.ts";

export interface VersionResult {
  readonly runs: number;
  readonly svcMedianMs: number;
  readonly bareMedianMs: number;
  /** svc ÷ bare (target ≤ 2). */
  readonly ratio: number;
}

async function timeOnce(cmd: string[]): Promise<number> {
  const started = performance.now();
  const proc = spawnTracked(cmd, { stdout: "pipe", stderr: "ignore" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  const ms = performance.now() - started;
  if (code !== 0 || out.trim() === "") throw new Error(`${cmd.join(" ")} exited ${code} printing ${JSON.stringify(out)}`);
  return ms;
}

export async function measureVersion(svcBinary: string, bareVersion: string, runs: number): Promise<VersionResult> {
  const svcCmd = [svcBinary, "--version"];
  await timeOnce(svcCmd);
  await timeOnce([bareVersion]);
  const svc: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    svc.push(await timeOnce(svcCmd));
    bare.push(await timeOnce([bareVersion]));
  }
  const svcMedianMs = median(svc);
  const bareMedianMs = median(bare);
  return { runs, svcMedianMs, bareMedianMs, ratio: svcMedianMs / bareMedianMs };
}
