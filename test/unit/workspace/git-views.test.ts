/**
 * The git views with a scripted runner in place of git: a run past its time bound is 503
 * `git_timeout` on every view, no view runs anything before the repository's filter names are
 * known (so none runs with a filter left in place), and the views' runs share bounded slots.
 */
import { expect, test } from "bun:test";
import { DaemonError } from "../../../src/errors/daemon-error.ts";
import { GitViews, RunSlots } from "../../../src/workspace/git/index.ts";
import type { GitRun } from "../../../src/workspace/git/git-run.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

/** The `key=value` command-scope settings of a run's variables. */
const settings = (env: Readonly<Record<string, string>> = {}) => Array.from({ length: Number(env.GIT_CONFIG_COUNT ?? 0) }, (_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`);
const ok = (stdout: string): GitRun => ({ code: 0, stdout, stderr: "", truncated: false, timedOut: false });
const late: GitRun = { code: null, stdout: "", stderr: "", truncated: false, timedOut: true };

/** Views whose runner answers `answer(args)` and records every argument list. */
function views(root: string, answer: (args: readonly string[]) => GitRun) {
  const seen: string[][] = [];
  const v = new GitViews({ root, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, runner: () => async (args, options) => (seen.push([...args, ...settings(options.env)]), answer(args)) });
  return { v, seen };
}

const subcommand = (args: readonly string[]) => args.find((a) => !a.startsWith("-"))!;

test("a run past its time bound is 503 git_timeout on every view", async () => {
  await using ws = tempDir("svc-git-late-");
  const { v } = views(ws.path, (args) => (subcommand(args) === "config" ? ok("svc.viewsguard\0") : late));
  const calls = [v.status(ws.path), v.diff(ws.path), v.diffFile(ws.path, "a.txt"), v.log(ws.path, { limit: 1, skip: 0, all: false }), v.commit(ws.path, "abcdef1"), v.branches(ws.path), v.remotes(ws.path)];
  for (const call of calls) {
    const err = await call.then(() => null, (e: unknown) => e);
    expect(err instanceof DaemonError ? [err.status, err.code, err.retryAfter] : err).toEqual([503, "git_timeout", 5]);
  }
});

test("the filter names come first, and every later run empties each of them", async () => {
  await using ws = tempDir("svc-git-filters-");
  const { v, seen } = views(ws.path, (args) => (subcommand(args) === "config" ? ok("filter.lfs.clean\0filter.x.process\0svc.viewsguard\0") : ok("")));
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

test("at most the slots' number of git runs at once; past the waiting bound a run is 503 git_busy", async () => {
  await using ws = tempDir("svc-git-slots-");
  let running = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const v = new GitViews(
    {
      root: ws.path,
      baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      runner: () => async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return ok("svc.viewsguard\0");
      },
    },
    new RunSlots(2, 3),
  );
  const calls = Array.from({ length: 5 }, () => v.status(ws.path).then(() => "ok", (e: DaemonError) => e.code));
  await until(() => gates.length === 2, 2000, "two runs to start");
  expect(running).toBe(2);
  const refused = await v.status(ws.path).then(() => "ok", (e: DaemonError) => e.code);
  expect(refused).toBe("git_busy");
  let finished = false;
  void Promise.all(calls).then(() => (finished = true));
  await until(() => (gates.shift()?.(), finished), 5000, "every view to finish, one run let go at a time");
  expect(await Promise.all(calls)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
  expect(most).toBe(2);
});

test("a git that ignores the command-scope variables (no guard listed) is not run further", async () => {
  await using ws = tempDir("svc-git-old-");
  const { v, seen } = views(ws.path, () => ok("filter.a.clean\0"));
  const err = await v.status(ws.path).then(() => null, (e: unknown) => e);
  expect(err instanceof DaemonError ? err.code : err).toBe("git_unavailable");
  expect(seen).toHaveLength(1);
});

test("a waiting run whose signal aborts leaves the queue (git_cancelled) and never runs", async () => {
  const gates: (() => void)[] = [];
  const ran: string[] = [];
  const run = new RunSlots(1, 1).limit(async (args) => {
    ran.push(args[0]!);
    await new Promise<void>((resolve) => gates.push(resolve));
    return ok("");
  });
  const first = run(["first"], { cwd: "/" });
  const abort = new AbortController();
  const second = run(["second"], { cwd: "/", signal: abort.signal }).then(() => "ok", (e: DaemonError) => e.code);
  abort.abort();
  expect(await second).toBe("git_cancelled");
  // Its place in the queue is free again: a third run may wait, and runs once the first is done.
  const third = run(["third"], { cwd: "/" });
  await until(() => gates.length === 1, 2000, "the first run");
  gates.shift()!();
  await first;
  await until(() => gates.length === 1, 2000, "the third run");
  gates.shift()!();
  await third;
  expect(ran).toEqual(["first", "third"]);
});

test("a git that cannot be started is 503 git_unavailable naming only the error's code; out of descriptors stays the system error", async () => {
  await using ws = tempDir("svc-git-spawn-");
  const spawnError = (code: string) => Object.assign(new Error(`${code}: posix_spawn '/usr/bin/git' in ${ws.path}`), { code });
  const failing = (code: string) => new GitViews({ root: ws.path, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, runner: () => async () => { throw spawnError(code); } });
  const err = await failing("ENOENT").status(ws.path).then(() => null, (e: unknown) => e);
  expect(err instanceof DaemonError ? [err.status, err.code, err.message] : err).toEqual([503, "git_unavailable", "git cannot be run: the process could not be started (ENOENT)"]);
  const exhausted = await failing("EMFILE").status(ws.path).then(() => null, (e: unknown) => e);
  expect((exhausted as { code?: string }).code).toBe("EMFILE");
});
