/**
 * The compiled binary under test. By default a fresh one is built into the scratch directory, so the
 * figures always match the working tree: through `build.ts --outfile` (the shipped build) when the
 * repo has it, else with a plain `bun build --compile --minify`. `--binary <path>` skips the build.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { scratchDir, spawnTracked } from "./procs.ts";
import { REPO_ROOT } from "./servers.ts";

export interface Binary {
  readonly path: string;
  readonly bytes: number;
  /** How it was obtained, for the report. */
  readonly origin: string;
}

async function run(cmd: string[]): Promise<void> {
  const proc = spawnTracked(cmd, { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`build failed (exit ${code}): ${cmd.join(" ")}\n${out}${err}`);
}

export async function obtainBinary(given: string | null): Promise<Binary> {
  if (given !== null) {
    if (!existsSync(given)) throw new Error(`--binary ${given}: no such file`);
    return { path: given, bytes: statSync(given).size, origin: `given (${given})` };
  }
  const path = join(scratchDir("bin"), "svc");
  const buildScript = join(REPO_ROOT, "build.ts");
  let cmd: string[];
  if (existsSync(buildScript)) cmd = [process.execPath, buildScript, "--outfile", path];
  else cmd = [process.execPath, "build", "--compile", "--minify", join(REPO_ROOT, "src", "main.ts"), "--outfile", path];
  await run(cmd);
  if (!existsSync(path)) throw new Error(`build produced no binary at ${path}: ${cmd.join(" ")}`);
  const origin = existsSync(buildScript) ? "built with build.ts --outfile" : "built with bun build --compile --minify (no build.ts)";
  return { path, bytes: statSync(path).size, origin };
}
