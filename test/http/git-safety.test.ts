/**
 * The git views never run a program the repository (or the daemon's inherited environment) chose.
 * A repository is laid with traps, each a script that records its name when run: `core.fsmonitor`,
 * a pager, `diff.external`, a diff driver's `command` and `textconv`, clean and process filters,
 * `gpg.program` under `log.showSignature` (with a commit carrying a signature), a `git` in a
 * relative PATH entry, and `GIT_EXTERNAL_DIFF`, `GIT_PAGER` and `GIT_DIR` in the daemon's
 * environment; and a `git` in an absolute PATH entry inside the workspace, which makes the views
 * answer as if git were missing (the first `git` on PATH decides, and that one is refused). First plain `git` is shown to spring each trap (so the traps are live),
 * then every git route is asked and must answer with no trap sprung.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { git, initRepo, plainGit } from "../helpers/git-repo.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

let traps: TempDir;
let ws: TempDir;
let d: FakeAgentDaemon;
const ranFile = () => join(traps.path, "ran");
const sprung = () => (existsSync(ranFile()) ? readFileSync(ranFile(), "utf8").split("\n").filter(Boolean).sort() : []);

function trap(dir: string, name: string, file = name): string {
  const path = join(dir, file);
  writeFileSync(path, `#!/bin/sh\necho ${name} >> '${ranFile()}'\nexec cat\n`);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(async () => {
  traps = tempDir("svc-git-traps-");
  ws = tempDir("svc-git-ws-");
  initRepo(ws.path, { "a.txt": "one\ntwo\n", "b.md": "# b\n", ".gitattributes": "*.txt diff=evil filter=evil\n*.md filter=evil2\n" });
  // A commit with a signature, so that log.showSignature has something to verify.
  const head = git(ws.path, "rev-parse", "HEAD").trim();
  const tree = git(ws.path, "rev-parse", "HEAD^{tree}").trim();
  const signed = `tree ${tree}\nparent ${head}\nauthor Test <test@example.com> 1700000000 +0000\ncommitter Test <test@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned commit\n`;
  writeFileSync(join(traps.path, "commit.txt"), signed);
  const sha = git(ws.path, "hash-object", "-t", "commit", "-w", join(traps.path, "commit.txt")).trim();
  git(ws.path, "update-ref", "refs/heads/main", sha);
  const config: [string, string][] = [
    ["core.fsmonitor", trap(traps.path, "fsmonitor")],
    ["core.pager", trap(traps.path, "pager")],
    ["pager.log", trap(traps.path, "pager-log")],
    ["diff.external", trap(traps.path, "diff-external")],
    ["diff.evil.command", trap(traps.path, "diff-command")],
    ["diff.evil.textconv", trap(traps.path, "textconv")],
    ["filter.evil.clean", trap(traps.path, "filter-clean")],
    ["filter.evil.smudge", trap(traps.path, "filter-smudge")],
    ["filter.evil2.process", trap(traps.path, "filter-process")],
    ["log.showSignature", "true"],
    ["gpg.program", trap(traps.path, "gpg")],
  ];
  for (const [key, value] of config) git(ws.path, "config", key, value);
  writeFileSync(join(ws.path, "a.txt"), "one\nthree\n");
  writeFileSync(join(ws.path, "b.md"), "# b changed\n");
  for (const dir of ["bin", "tools"]) {
    mkdirSync(join(ws.path, dir));
    trap(join(ws.path, dir), `${dir}-git`, "git");
  }
  writeFileSync(join(ws.path, ".git", "info", "exclude"), "bin/\ntools/\n");
});

afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
  await ws?.[Symbol.asyncDispose]();
  await traps?.[Symbol.asyncDispose]();
});

test("plain git springs every trap (the traps are live)", () => {
  rmSync(ranFile(), { force: true });
  plainGit(ws.path, ["status"]);
  plainGit(ws.path, ["diff", "HEAD"]);
  plainGit(ws.path, ["diff", "--no-ext-diff", "HEAD"]);
  plainGit(ws.path, ["log", "-1"]);
  const sh = Bun.spawnSync(["sh", "-c", "git --version"], { cwd: ws.path, env: { PATH: `bin:${process.env.PATH}` } });
  expect(sh.exitCode).toBe(0);
  const shInside = Bun.spawnSync(["sh", "-c", "git --version"], { cwd: ws.path, env: { PATH: `${ws.path}/tools:${process.env.PATH}` } });
  expect(shInside.exitCode).toBe(0);
  // A pager runs only on a terminal: `script` gives plain git one.
  const withTerminal = Bun.which("script") !== null;
  if (withTerminal) for (const cmd of ["git log -1", "git diff --no-ext-diff --no-textconv HEAD"]) Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], { cwd: ws.path, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }, stdout: "ignore", stderr: "ignore" });
  const ran = new Set(sprung());
  const live = ["fsmonitor", "diff-command", "textconv", "filter-clean", "filter-process", "gpg", "bin-git", "tools-git", ...(withTerminal ? ["pager", "pager-log"] : [])];
  for (const name of live) expect([name, ran.has(name)]).toEqual([name, true]);
  rmSync(ranFile(), { force: true });
});

test("every git route answers, and no trap is sprung", async () => {
  d = await fakeAgentDaemon(["--trust-workspace"], {
    workspace: ws.path,
    env: { PATH: `bin:${process.env.PATH}`, GIT_EXTERNAL_DIFF: trap(traps.path, "env-external-diff"), GIT_PAGER: trap(traps.path, "env-pager"), GIT_DIR: traps.path },
  });
  rmSync(ranFile(), { force: true });
  const id = encodeURIComponent(ws.path);
  const status = await d.json("GET", "/workspace/git?wait=1");
  expect(status.body).toMatchObject({ v: 2, branch: "main", unstaged: 2 });
  const diff = await d.json("GET", "/workspace/git/diff");
  expect(diff.body).toMatchObject({ available: true, filesCount: 2 });
  for (const path of ["a.txt", "b.md"]) {
    const file = await d.json("GET", `/workspaces/${id}/git/diff/file?path=${path}`);
    expect(file.status).toBe(200);
  }
  const log = await d.json("GET", "/workspace/git/log");
  expect(log.body.entries.map((e: { subject: string }) => e.subject)).toEqual(["signed commit", "first commit"]);
  const commit = await d.json("GET", `/workspace/git/log/commit?sha=${log.body.entries[0].sha}`);
  expect(commit.body).toMatchObject({ available: true, subject: "signed commit" });
  expect((await d.json("GET", "/workspace/git/branches")).body).toMatchObject({ head: "main" });
  expect((await d.json("GET", `/workspaces/${id}/git/remotes`)).status).toBe(200);
  expect((await d.json("GET", "/workspace/git/log?search=signed")).body.entries).toHaveLength(1);
  expect(sprung()).toEqual([]);
});

test("a git first found inside the workspace (an absolute PATH entry) is refused, not run: the views answer without git", async () => {
  await d[Symbol.asyncDispose]();
  d = await fakeAgentDaemon(["--trust-workspace"], { workspace: ws.path, env: { PATH: `${ws.path}/tools:${process.env.PATH}` } });
  rmSync(ranFile(), { force: true });
  expect((await d.json("GET", "/workspace/git")).body).toEqual({ v: 2, workspaceCwd: ws.path, branch: null });
  const branches = await d.json("GET", "/workspace/git/branches");
  expect([branches.status, branches.body.code]).toEqual([503, "git_unavailable"]);
  expect(sprung()).toEqual([]);
});
