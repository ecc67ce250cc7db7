/**
 * The fake ACP agent as the daemon's child, two ways: the TypeScript entry as the tests run it (Bun
 * transpiles it and resolves the ACP SDK at every spawn), and pre-bundled into one minified JS file
 * (`bun build --target=bun --minify`), closer to how a shipped agent starts. No bytecode variant:
 * Bun compiles ESM to bytecode only with `--compile`, and the agent's top-level `await` rules out CJS.
 */
import { join } from "node:path";
import { scratchDir, spawnTracked } from "./procs.ts";
import { REPO_ROOT } from "./servers.ts";

export const FAKE_AGENT_TS = join(REPO_ROOT, "test", "fixtures", "fake-agent.ts");

export async function bundleFakeAgent(): Promise<string> {
  const outfile = join(scratchDir("agent"), "fake-agent.js");
  const cmd = [process.execPath, "build", "--target=bun", "--minify", FAKE_AGENT_TS, "--outfile", outfile];
  const proc = spawnTracked(cmd, { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`bundling the fake agent failed (exit ${code}): ${cmd.join(" ")}\n${out}${err}`);
  return outfile;
}
