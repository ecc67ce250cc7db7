/**
 * The git views with a scripted runner in place of git: a run past its time bound is 503
 * `git_timeout` on every view, and no view runs anything before the repository's filter names are
 * known (so none runs with a filter left in place).
 */
import { expect, test } from "bun:test";
import { DaemonError } from "../../../src/errors/daemon-error.ts";
import { GitViews } from "../../../src/workspace/git/index.ts";
import type { GitRun } from "../../../src/workspace/git/git-run.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const ok = (stdout: string): GitRun => ({ code: 0, stdout, stderr: "", truncated: false, timedOut: false });
const late: GitRun = { code: null, stdout: "", stderr: "", truncated: false, timedOut: true };

/** Views whose runner answers `answer(args)` and records every argument list. */
function views(root: string, answer: (args: readonly string[]) => GitRun) {
  const seen: string[][] = [];
  const v = new GitViews({ root, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, runner: () => async (args) => (seen.push([...args]), answer(args)) });
  return { v, seen };
}

const subcommand = (args: readonly string[]) => args.find((a, i) => i > 0 && !a.startsWith("-") && args[i - 1] !== "-c")!;

test("a run past its time bound is 503 git_timeout on every view", async () => {
  await using ws = tempDir("svc-git-late-");
  const { v } = views(ws.path, (args) => (subcommand(args) === "config" ? ok("") : late));
  const calls = [v.status(ws.path), v.diff(ws.path), v.diffFile(ws.path, "a.txt"), v.log(ws.path, { limit: 1, skip: 0, all: false }), v.commit(ws.path, "abcdef1"), v.branches(ws.path), v.remotes(ws.path)];
  for (const call of calls) {
    const err = await call.then(() => null, (e: unknown) => e);
    expect(err instanceof DaemonError ? [err.status, err.code, err.retryAfter] : err).toEqual([503, "git_timeout", 5]);
  }
});

test("the filter names come first, and every later run empties each of them", async () => {
  await using ws = tempDir("svc-git-filters-");
  const { v, seen } = views(ws.path, (args) => (subcommand(args) === "config" ? ok("filter.lfs.clean\0filter.x.process\0") : ok("")));
  await v.status(ws.path);
  expect(subcommand(seen[0]!)).toBe("config");
  expect(seen.length).toBeGreaterThan(1);
  for (const args of seen.slice(1)) for (const key of ["filter.lfs.clean=", "filter.lfs.process=", "filter.x.clean=", "filter.x.smudge="]) expect(args).toContain(key);
});

test("filter configuration cut at its bound refuses to run git at all", async () => {
  await using ws = tempDir("svc-git-cut-");
  const { v, seen } = views(ws.path, () => ({ ...ok("filter.a.clean\0filter.b"), truncated: true }));
  const err = await v.branches(ws.path).then(() => null, (e: unknown) => e);
  expect(err instanceof DaemonError ? err.code : err).toBe("git_unavailable");
  expect(seen).toHaveLength(1);
});
