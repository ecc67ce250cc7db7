/**
 * The git runner's bounds, with a stand-in program in place of git: output past the byte bound
 * stops the run (its whole process group) and is cut at the bound; a run past its time bound is
 * killed with everything it started; stderr is kept to its first bytes; the environment given is
 * the whole environment.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitProcessRunner } from "../../../src/runtime/git-process.ts";
import { GIT_STDERR_BYTES } from "../../../src/workspace/git/git-run.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";
import { expectPidsGone } from "../../helpers/pids.ts";

let dir: TempDir;
beforeAll(() => {
  dir = tempDir("svc-git-runner-");
});
afterAll(async () => {
  await dir?.[Symbol.asyncDispose]();
});

function program(name: string, body: string): string {
  const path = join(dir.path, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

test("output past the bound stops the run and is cut at the bound", async () => {
  const run = gitProcessRunner(program("yes", "exec yes"), { PATH: "/usr/bin:/bin" });
  const r = await run([], { cwd: dir.path, maxBytes: 64 * 1024 });
  expect([r.truncated, r.code, r.timedOut, Buffer.byteLength(r.stdout)]).toEqual([true, null, false, 64 * 1024]);
});

test("a run past its time bound is killed with what it started", async () => {
  const pidFile = join(dir.path, "child.pid");
  const run = gitProcessRunner(program("slow", `sleep 30 & echo $! > '${pidFile}'; wait`), { PATH: "/usr/bin:/bin" }, 300);
  const started = Date.now();
  const r = await run([], { cwd: dir.path });
  expect([r.timedOut, r.code]).toEqual([true, null]);
  expect(Date.now() - started).toBeLessThan(5000);
  const child = Number(readFileSync(pidFile, "utf8"));
  await expectPidsGone([child], 1000, "the run's background child");
});

test("a finished run leaves nothing it started behind", async () => {
  const pidFile = join(dir.path, "left.pid");
  const run = gitProcessRunner(program("leaver", `sleep 30 > /dev/null 2>&1 & echo $! > '${pidFile}'; echo done`), { PATH: "/usr/bin:/bin" });
  const r = await run([], { cwd: dir.path });
  expect([r.code, r.stdout]).toEqual([0, "done\n"]);
  await expectPidsGone([Number(readFileSync(pidFile, "utf8"))], 1000, "the run's leftover child");
});

test("stderr is kept to its first bytes; the exit code and arguments pass through", async () => {
  const run = gitProcessRunner(program("noisy", `head -c 100000 /dev/zero | tr '\\\\0' e >&2; echo "$@"; exit 3`), { PATH: "/usr/bin:/bin" });
  const r = await run(["a", "b c"], { cwd: dir.path });
  expect([r.code, r.stdout, r.stderr.length, r.truncated]).toEqual([3, "a b c\n", GIT_STDERR_BYTES, false]);
});

test("the environment given is the whole environment", async () => {
  const run = gitProcessRunner(program("env", "env"), { ONLY: "this" });
  const r = await run([], { cwd: dir.path });
  expect(r.stdout.split("\n").filter((l) => l && !l.startsWith("PWD=") && !l.startsWith("SHLVL=") && !l.startsWith("_="))).toEqual(["ONLY=this"]);
});

test("a process that left the group holding the pipe does not hold the run past its time bound", async () => {
  const pidFile = join(dir.path, "setsid.pid");
  const run = gitProcessRunner(program("escaper", `setsid sleep 30 & echo $! > '${pidFile}'; sleep 30`), { PATH: "/usr/bin:/bin" }, 300);
  const started = Date.now();
  const r = await run([], { cwd: dir.path });
  expect(r.timedOut).toBe(true);
  expect(Date.now() - started).toBeLessThan(3000);
  process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
});
