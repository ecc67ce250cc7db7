/**
 * The git views stay inside their repository and run nothing it chose, against the traps plain
 * `-c` overrides miss: a filter driver whose name holds `=` (git splits `-c` at the first `=`) or
 * is empty, a partial clone's lazy fetch over a transport the repository allows itself
 * (`protocol.ext.allow=always`) with a `git` that ignores GIT_NO_LAZY_FETCH, and a `.git` file or
 * link in a workspace folder naming another repository on disk. Each trap is first shown live with
 * plain `git`.
 */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { git, initRepo, plainGit } from "../helpers/git-repo.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

const PATH = process.env.PATH ?? "/usr/bin:/bin";
const cleanup: (FakeAgentDaemon | TempDir)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c[Symbol.asyncDispose]();
});

function temp(prefix: string): TempDir {
  const t = tempDir(prefix);
  cleanup.push(t);
  return t;
}

async function daemon(workspace: string, env: Record<string, string> = { PATH }): Promise<FakeAgentDaemon> {
  const d = await fakeAgentDaemon(["--trust-workspace"], { workspace, env });
  cleanup.push(d);
  return d;
}

/** A script recording `name` in `log` when run, then passing its input through. */
function trapCommand(log: string, name: string): string {
  return `sh -c 'echo ${name} >> ${log}; cat'`;
}
/** The trap names recorded in `log`, sorted. */
const sprung = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).sort() : []);

test("a filter driver named with '=' or with an empty name never runs", async () => {
  const traps = temp("svc-git-iso-traps-");
  const ws = temp("svc-git-iso-ws-");
  const log = join(traps.path, "ran");
  initRepo(ws.path, { "a.txt": "one\n", "b.md": "# b\n", ".gitattributes": "*.txt filter=x=y\n*.md filter=\n" });
  git(ws.path, "config", "filter.x=y.clean", trapCommand(log, "eq-clean"));
  writeFileSync(join(ws.path, ".git", "config"), `${readFileSync(join(ws.path, ".git", "config"), "utf8")}[filter ""]\n\tclean = "${trapCommand(log, "empty-clean")}"\n`);
  writeFileSync(join(ws.path, "a.txt"), "one\nchanged\n");
  writeFileSync(join(ws.path, "b.md"), "# b changed\n");
  plainGit(ws.path, ["status"]);
  plainGit(ws.path, ["diff", "HEAD"]);
  expect([...new Set(sprung(log))]).toEqual(["empty-clean", "eq-clean"]);
  rmSync(log);

  const d = await daemon(ws.path);
  expect((await d.json("GET", "/workspace/git")).body).toMatchObject({ v: 2, branch: "main", unstaged: 2 });
  expect((await d.json("GET", "/workspace/git/diff")).body).toMatchObject({ available: true, filesCount: 2 });
  for (const path of ["a.txt", "b.md"]) expect((await d.json("GET", `/workspace/git/diff/file?path=${path}`)).body).toMatchObject({ available: true });
  expect(sprung(log)).toEqual([]);
});

test("a partial clone's lazy fetch opens no transport, even one the repository allows, with a git ignoring GIT_NO_LAZY_FETCH", async () => {
  const traps = temp("svc-git-iso-lazy-");
  const ws = temp("svc-git-iso-ws-");
  const log = join(traps.path, "ran");
  const oldGit = join(traps.path, "oldgit");
  mkdirSync(oldGit);
  writeFileSync(join(oldGit, "git"), `#!/bin/sh\nunset GIT_NO_LAZY_FETCH\nexec ${Bun.which("git")} "$@"\n`);
  chmodSync(join(oldGit, "git"), 0o755);
  initRepo(ws.path, { "a.txt": "v1\n" });
  const blob = git(ws.path, "rev-parse", "HEAD:a.txt").trim();
  rmSync(join(ws.path, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
  git(ws.path, "config", "extensions.partialClone", "origin");
  git(ws.path, "config", "remote.origin.promisor", "true");
  git(ws.path, "config", "protocol.ext.allow", "always");
  git(ws.path, "config", "remote.origin.url", `ext::sh -c echo% lazy-fetch% >>% ${log}`);
  writeFileSync(join(ws.path, "a.txt"), "v2\n");
  plainGit(ws.path, ["diff", "HEAD"], { PATH: `${oldGit}:${PATH}` });
  expect([...new Set(sprung(log))]).toEqual(["lazy-fetch"]);
  rmSync(log);

  const d = await daemon(ws.path, { PATH: `${oldGit}:${PATH}` });
  expect((await d.json("GET", "/workspace/git/diff/file?path=a.txt")).status).toBe(200);
  expect((await d.json("GET", "/workspace/git/diff")).status).toBe(200);
  expect(sprung(log)).toEqual([]);
});

for (const kind of ["a .git file", "a .git link"] as const)
  test(`${kind} in a workspace folder naming another repository: its history and files are not read`, async () => {
    const secret = temp("svc-git-iso-secret-");
    const ws = temp("svc-git-iso-ws-");
    initRepo(secret.path, { "secret.txt": "TOP-SECRET-CONTENT\n" });
    initRepo(ws.path, { "r.txt": "r\n" });
    mkdirSync(join(ws.path, "sub"));
    if (kind === "a .git file") writeFileSync(join(ws.path, "sub", ".git"), `gitdir: ${join(secret.path, ".git")}\n`);
    else symlinkSync(join(secret.path, ".git"), join(ws.path, "sub", ".git"));
    expect(plainGit(join(ws.path, "sub"), ["log", "--format=%s"]).stdout).toBe("first commit\n");

    const d = await daemon(ws.path);
    const q = (path: string) => `/workspaces/${encodeURIComponent(ws.path)}${path}`;
    const answers = [
      await d.json("GET", q("/git/log?cwd=sub")),
      await d.json("GET", q("/git/diff?cwd=sub")),
      await d.json("GET", q("/git/diff/file?cwd=sub&path=secret.txt")),
      await d.json("GET", q("/git?cwd=sub")),
      await d.json("GET", q("/git/branches?cwd=sub")),
      await d.json("GET", q("/git/remotes?cwd=sub")),
    ];
    for (const a of answers) expect(JSON.stringify(a.body).replace('"path":"secret.txt"', "")).not.toContain("secret");
    expect(answers[0]!.body).toMatchObject({ available: false, entries: [] });
    expect(answers[2]!.body).toMatchObject({ available: false, hunks: [] });
    // The workspace's own repository still answers.
    expect((await d.json("GET", q("/git/log"))).body.entries).toHaveLength(1);
  });

test("a workspace that is a linked worktree (its git directories elsewhere) is read, from its folders too", async () => {
  const main = temp("svc-git-iso-main-");
  const parent = temp("svc-git-iso-wt-");
  mkdirSync(join(main.path, "sub"));
  initRepo(main.path, { "sub/s.txt": "s\n" });
  const ws = join(parent.path, "wt");
  git(main.path, "worktree", "add", "-q", "-b", "side", ws);
  const d = await daemon(ws);
  const q = (path: string) => `/workspaces/${encodeURIComponent(ws)}${path}`;
  for (const path of [q("/git/log"), q("/git/log?cwd=sub")]) expect((await d.json("GET", path)).body).toMatchObject({ available: true, entries: [{ subject: "first commit" }] });
});
