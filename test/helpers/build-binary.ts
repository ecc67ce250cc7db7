/**
 * Compiles the real `svc` binary with `build.ts` into a temp dir (1–2 s), for the e2e tests.
 * Build once per test file in `beforeAll` and dispose in `afterAll`.
 */
import { join } from "node:path";
import { REPO_ROOT } from "./daemon.ts";
import { tempDir } from "./temp-dir.ts";

export interface BuiltBinary extends AsyncDisposable {
  /** Absolute path of the executable; `<path>.sha256` lies beside it. */
  readonly path: string;
  /** What build.ts printed (includes the size line). */
  readonly buildOutput: string;
}

export async function buildBinary(): Promise<BuiltBinary> {
  const dir = tempDir("svc-bin-");
  const path = join(dir.path, "svc");
  // Run from the temp dir so no bunfig.toml or .env of the repo takes part in the build.
  const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "build.ts"), "--outfile", path], {
    cwd: dir.path,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (exitCode !== 0) {
    await dir[Symbol.asyncDispose]();
    throw new Error(`build.ts exited ${exitCode}:\n${stdout}${stderr}`);
  }
  return { path, buildOutput: stdout, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}
