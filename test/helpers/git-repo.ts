/**
 * Real git repositories for the git view tests, made with the test machine's `git` in temp
 * directories (`GIT_CONFIG_NOSYSTEM`, an empty global config, a fixed identity), so the developer's
 * config plays no part.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const GIT_ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

/** `git <args>` in `cwd`; throws with its stderr when it fails. Returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", ...args], { cwd, env: GIT_ENV, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")} exited ${run.exitCode}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

/** `git <args>` run as a plain user would, with no svc safeguards: for tests showing a trap is live. */
export function plainGit(cwd: string, args: string[], env: Record<string, string> = {}): { code: number; stdout: string } {
  const run = Bun.spawnSync(["git", ...args], { cwd, env: { ...GIT_ENV, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, stdout: run.stdout.toString() };
}

/** Makes `dir` a repository on branch main with `files` committed ("first commit"). */
export function initRepo(dir: string, files: Record<string, string>): void {
  git(dir, "init", "-q", "-b", "main");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "first commit");
}
