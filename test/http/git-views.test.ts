/**
 * The read-only git views over HTTP: the reference's shapes on a real repository, the answers
 * outside a repository and in an untrusted workspace, bounds on huge diffs and many files, and
 * hostile spellings (trailing slash, HEAD, oversized or malformed queries, paths and `cwd`s that
 * leave the workspace). Every answer is checked against the daemon's OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { git, initRepo } from "../helpers/git-repo.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
let ws: TempDir;
let outside: TempDir;
let d: FakeAgentDaemon;
let sha: string;
const q = (path: string) => `/workspaces/${encodeURIComponent(ws.path)}${path}`;

beforeAll(async () => {
  ws = tempDir("svc-git-views-");
  outside = tempDir("svc-git-outside-");
  writeFileSync(join(outside.path, "secret.txt"), "secret\n");
  const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n") + "\n";
  mkdirSync(join(ws.path, "sub"));
  initRepo(ws.path, { "a.txt": "one\ntwo\n", "big.txt": big, "gone.txt": "bye\n", "sub/s.txt": "s\n" });
  sha = git(ws.path, "rev-parse", "HEAD").trim();
  git(ws.path, "tag", "v1");
  git(ws.path, "branch", "feature");
  git(ws.path, "remote", "add", "origin", "https://user:hunter2@example.com/r.git");
  writeFileSync(join(ws.path, "a.txt"), "one\nthree\nfour\n");
  writeFileSync(join(ws.path, "big.txt"), big.replaceAll("line", "LINE"));
  git(ws.path, "rm", "-q", "gone.txt");
  writeFileSync(join(ws.path, "new.txt"), "n1\nn2\n");
  symlinkSync(join(outside.path, "secret.txt"), join(ws.path, "leak.txt"));
  symlinkSync(outside.path, join(ws.path, "out"));
  d = await fakeAgentDaemon(["--trust-workspace"], { workspace: ws.path, env });
});

afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
  await ws?.[Symbol.asyncDispose]();
  await outside?.[Symbol.asyncDispose]();
});

describe("on a repository", () => {
  test("GET /workspace/git and its qualified twin answer the v2 summary, ?wait=1 too", async () => {
    for (const path of ["/workspace/git", "/workspace/git?wait=1", q("/git"), q("/git?wait=1")]) {
      const { status, body } = await d.json("GET", path);
      expect(status).toBe(200);
      expect(body).toMatchObject({ v: 2, workspaceCwd: ws.path, branch: "main", detached: false, staged: 1, unstaged: 2, untracked: 3, conflicted: 0, hasUpstream: false, ahead: 0, behind: 0, stashCount: 0 });
      expect(typeof body.computedAt).toBe("number");
    }
  });

  test("a cwd inside the workspace is read from, and named in the answer", async () => {
    const { body } = await d.json("GET", q(`/git?cwd=${encodeURIComponent(join(ws.path, "sub"))}`));
    expect(body).toMatchObject({ v: 2, workspaceCwd: join(ws.path, "sub"), branch: "main" });
    expect((await d.json("GET", q("/git?cwd=sub"))).body.workspaceCwd).toBe(join(ws.path, "sub"));
  });

  test("the diff lists tracked, deleted and untracked files; an untracked link to outside is not read", async () => {
    const { status, body } = await d.json("GET", "/workspace/git/diff");
    expect(status).toBe(200);
    const byPath = Object.fromEntries(body.files.map((f: { path: string }) => [f.path, f]));
    expect(byPath["a.txt"]).toEqual({ path: "a.txt", added: 2, removed: 1, isBinary: false, isUntracked: false, isDeleted: false, truncated: false });
    expect(byPath["gone.txt"]).toMatchObject({ removed: 1, isDeleted: true });
    expect(byPath["new.txt"]).toEqual({ path: "new.txt", added: 2, removed: 0, isBinary: false, isUntracked: true, isDeleted: false, truncated: false });
    expect(byPath["leak.txt"]).toMatchObject({ added: 0, isUntracked: true });
    expect(body).toMatchObject({ v: 1, workspaceCwd: ws.path, available: true, filesCount: 6, hiddenCount: 0 });
    expect((await d.json("GET", q("/git/diff"))).body).toEqual(body);
  });

  test("one file's hunks; an untracked file is one hunk of added lines; a link to outside is not read", async () => {
    expect((await d.json("GET", "/workspace/git/diff/file?path=a.txt")).body).toEqual({
      v: 1, workspaceCwd: ws.path, path: "a.txt", available: true,
      hunks: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 3, lines: [" one", "-two", "+three", "+four"] }],
    });
    expect((await d.json("GET", q("/git/diff/file?path=new.txt"))).body.hunks).toEqual([{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ["+n1", "+n2"] }]);
    expect((await d.json("GET", "/workspace/git/diff/file?path=leak.txt")).body).toMatchObject({ available: false, hunks: [] });
    expect((await d.json("GET", "/workspace/git/diff/file?path=nothing.txt")).body).toMatchObject({ available: false, hunks: [] });
  });

  test("a huge diff is cut at 400 lines and marked truncated", async () => {
    const { body } = await d.json("GET", "/workspace/git/diff/file?path=big.txt");
    const lines = body.hunks.flatMap((h: { lines: string[] }) => h.lines).filter((l: string) => !l.startsWith("\\"));
    expect(lines.length).toBe(400);
    expect(body).toMatchObject({ available: true, truncated: true });
  });

  test("the log pages, and a commit answers its files", async () => {
    const page = await d.json("GET", "/workspace/git/log?limit=1");
    expect(page.body).toEqual({
      v: 1, workspaceCwd: ws.path, available: true, hasMore: false,
      entries: [{ sha, shortSha: sha.slice(0, 7), authorName: "Test", authorEmail: "test@example.com", authorDate: expect.any(Number), subject: "first commit", refs: "HEAD -> main, tag: v1, feature", parents: [] }],
    });
    expect((await d.json("GET", q("/git/log?skip=1"))).body.entries).toEqual([]);
    const commit = await d.json("GET", `/workspace/git/log/commit?sha=${sha.slice(0, 10)}`);
    expect(commit.body).toMatchObject({ available: true, sha, body: "", filesCount: 4, linesAdded: 3004, linesRemoved: 0, hiddenCount: 0 });
    expect((await d.json("GET", q(`/git/log/commit?sha=${"0".repeat(40)}`))).body).toEqual({ v: 1, workspaceCwd: ws.path, available: false });
  });

  test("branches, tags and HEAD; remotes without credentials", async () => {
    const { body } = await d.json("GET", "/workspace/git/branches");
    expect(body).toMatchObject({ v: 1, available: true, head: "main", detached: false, recent: [], remote: [] });
    expect(body.local.map((b: { name: string }) => b.name)).toEqual(["feature", "main"]);
    expect(body.tags).toEqual([{ name: "v1", date: expect.any(Number), subject: "first commit" }]);
    expect((await d.json("GET", q("/git/branches"))).body).toEqual(body);
    const remotes = await d.json("GET", q("/git/remotes"));
    expect(remotes.body.remotes).toEqual([{ name: "origin", fetchUrl: "https://***@example.com/r.git", pushUrl: "https://***@example.com/r.git", extraFetchUrls: 0, extraPushUrls: 0, promisor: false, customRefspec: false, otherSettings: 0 }]);
    expect(JSON.stringify(remotes.body)).not.toContain("hunter2");
  });

  test("/capabilities advertises workspace_git", async () => {
    expect((await d.json("GET", "/capabilities")).body.features).toContain("workspace_git");
  });
});

describe("hostile spellings", () => {
  const routes = () => ["/workspace/git", "/workspace/git/branches", "/workspace/git/diff", "/workspace/git/log", q("/git"), q("/git/diff"), q("/git/log"), q("/git/branches"), q("/git/remotes")];

  test("a trailing slash is no route (JSON 404)", async () => {
    for (const path of [...routes(), "/workspace/git/diff/file", "/workspace/git/log/commit"]) {
      const res = await d.json("GET", `${path}/`);
      expect([path, res.status, res.body.code]).toEqual([path, 404, "route_not_found"]);
    }
  });

  test("HEAD answers the GET's status with no body", async () => {
    for (const path of [...routes(), "/workspace/git/diff/file?path=a.txt", "/workspace/git/diff/file"]) {
      const res = await rawRequest(d.port, { method: "HEAD", path, headers: [["Host", `127.0.0.1:${d.port}`]] });
      expect([path, res.status, res.body.byteLength]).toEqual([path, (await d.fetch(path)).status, 0]);
    }
  });

  test("answers carry no-store and nosniff", async () => {
    const res = await d.fetch("/workspace/git/diff");
    expect([res.headers.get("cache-control"), res.headers.get("x-content-type-options")]).toEqual(["no-store", "nosniff"]);
  });

  test("oversized and malformed queries are 400 parse_error", async () => {
    const cases = [
      `/workspace/git/diff/file?path=${"a".repeat(5000)}`,
      "/workspace/git/diff/file",
      "/workspace/git/diff/file?path=",
      `/workspace/git/log?search=${"s".repeat(2000)}`,
      "/workspace/git/log?limit=201",
      "/workspace/git/log?limit=0",
      "/workspace/git/log?limit=1e2",
      "/workspace/git/log?skip=-1",
      "/workspace/git/log?range=--output=/tmp/x",
      "/workspace/git/log?range=..main",
      "/workspace/git/log?all=yes",
      "/workspace/git/log/commit?sha=zz",
      "/workspace/git/log/commit?sha=--all",
      "/workspace/git/log/commit",
      "/workspace/git?wait=2",
    ];
    for (const path of cases) {
      const res = await d.json("GET", path);
      expect([path.slice(0, 60), res.status, res.body.errorKind]).toEqual([path.slice(0, 60), 400, "parse_error"]);
    }
  });

  test("paths and cwds that leave the workspace are refused", async () => {
    const refused: [string, string][] = [
      ["/workspace/git/diff/file?path=../x", "path_outside_workspace"],
      [`/workspace/git/diff/file?path=${encodeURIComponent(join(outside.path, "secret.txt"))}`, "path_outside_workspace"],
      ["/workspace/git/diff/file?path=a.txt&oldPath=../../etc/passwd", "path_outside_workspace"],
      ["/workspace/git/diff/file?path=%252e%252e/x", "path_outside_workspace"],
      [q("/git?cwd=/etc"), "path_outside_workspace"],
      [q("/git/log?cwd=../"), "path_outside_workspace"],
      [q("/git/diff?cwd=out"), "symlink_escape"],
    ];
    for (const [path, kind] of refused) {
      const res = await d.json("GET", path);
      expect([path, res.status, res.body.errorKind]).toEqual([path, 400, kind]);
    }
    expect((await d.json("GET", q("/git?cwd=missing"))).body.errorKind).toBe("path_not_found");
    expect((await d.json("GET", q("/git?cwd=a.txt"))).body.errorKind).toBe("parse_error");
  });

  test("another workspace is 404, a selector that is neither id nor path 400", async () => {
    expect((await d.json("GET", "/workspaces/0123456789abcdef/git")).body.code).toBe("workspace_not_found");
    expect((await d.json("GET", `/workspaces/${encodeURIComponent(outside.path)}/git/diff`)).body.code).toBe("workspace_not_found");
    expect((await d.json("GET", "/workspaces/nope/git/log")).body.code).toBe("invalid_workspace");
  });
});

describe("a workspace inside a larger repository", () => {
  test("paths are the repository's, but only those inside the workspace are read and counted", async () => {
    await using sub = await fakeAgentDaemon(["--trust-workspace"], { workspace: join(ws.path, "sub"), env });
    expect((await sub.json("GET", "/workspace/git")).body).toMatchObject({ workspaceCwd: join(ws.path, "sub"), branch: "main" });
    writeFileSync(join(ws.path, "sub", "s.txt"), "s\nmore\n");
    expect((await sub.json("GET", "/workspace/git/diff/file?path=sub/s.txt")).body).toMatchObject({ available: true, path: "sub/s.txt" });
    const res = await sub.json("GET", "/workspace/git/diff/file?path=a.txt");
    expect([res.status, res.body.errorKind]).toEqual([400, "path_outside_workspace"]);
    const untracked = await sub.json("GET", "/workspace/git/diff/file?path=new.txt");
    expect([untracked.status, untracked.body.errorKind]).toEqual([400, "path_outside_workspace"]);
    // The diff lists the workspace's files only, not the rest of the repository's changes.
    writeFileSync(join(ws.path, "sub", "u.txt"), "u\n");
    const diff = await sub.json("GET", "/workspace/git/diff");
    expect(diff.body).toMatchObject({ available: true, filesCount: 2, linesAdded: 2, linesRemoved: 0, hiddenCount: 0 });
    expect(diff.body.files.map((f: { path: string }) => f.path).sort()).toEqual(["sub/s.txt", "sub/u.txt"]);
    // So does the summary count them: the repository's other changes (1 staged, 2 unstaged, 3 untracked) are not the workspace's.
    expect((await sub.json("GET", "/workspace/git")).body).toMatchObject({ branch: "main", staged: 0, unstaged: 1, untracked: 1, conflicted: 0 });
    rmSync(join(ws.path, "sub", "u.txt"));
    writeFileSync(join(ws.path, "sub", "s.txt"), "s\n");
  });
});

describe("bounds", () => {
  test("past 500 changed files the diff answers its totals only", async () => {
    await using many = tempDir("svc-git-many-");
    initRepo(many.path, { "a.txt": "a\n" });
    for (let i = 0; i < 520; i++) writeFileSync(join(many.path, `u${i}.txt`), "x\n");
    await using m = await fakeAgentDaemon(["--trust-workspace"], { workspace: many.path, env });
    const { body } = await m.json("GET", "/workspace/git/diff");
    expect(body).toMatchObject({ available: true, filesCount: 520, files: [], hiddenCount: 520 });
    const status = await m.json("GET", "/workspace/git");
    expect(status.body.untracked).toBe(520);
  });

  test("a search whose matches pass the output bound says more follow rather than that the history ended", async () => {
    await using many = tempDir("svc-git-many-commits-");
    git(many.path, "init", "-q", "-b", "main");
    const commits: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const m = `match commit ${i} ${"x".repeat(60)}`;
      commits.push(`commit refs/heads/main\nmark :${i + 1}\ncommitter A <a@b> ${1_600_000_000 + i} +0000\ndata ${m.length}\n${m}\n${i ? `from :${i}\n` : ""}`);
    }
    const fi = Bun.spawnSync(["git", "fast-import", "--quiet"], { cwd: many.path, stdin: Buffer.from(commits.join("")), env });
    expect(fi.exitCode).toBe(0);
    await using m = await fakeAgentDaemon(["--trust-workspace"], { workspace: many.path, env });
    expect((await m.json("GET", "/workspace/git/log?limit=2&skip=25000")).body.entries).toHaveLength(2);
    const deep = await m.json("GET", "/workspace/git/log?limit=2&skip=25000&search=match");
    expect(deep.body).toMatchObject({ available: true, hasMore: true });
    const first = await m.json("GET", "/workspace/git/log?limit=2&search=match");
    expect(first.body.entries.map((e: { subject: string }) => e.subject)).toEqual([`match commit 39999 ${"x".repeat(60)}`, `match commit 39998 ${"x".repeat(60)}`]);
    expect(first.body.hasMore).toBe(true);
  }, 60_000);

  test("untracked files are read up to 8 MiB in all for one diff; past it their counts are marked truncated", async () => {
    await using many = tempDir("svc-git-big-untracked-");
    initRepo(many.path, { "a.txt": "a\n" });
    const mib = "\n".repeat(1024 * 1024);
    for (let i = 0; i < 12; i++) writeFileSync(join(many.path, `u${String(i).padStart(2, "0")}.txt`), mib);
    await using m = await fakeAgentDaemon(["--trust-workspace"], { workspace: many.path, env });
    const { body } = await m.json("GET", "/workspace/git/diff");
    const files = body.files as { path: string; added: number; truncated: boolean }[];
    expect(files).toHaveLength(12);
    expect(files.slice(0, 8).map((f) => [f.added, f.truncated])).toEqual(Array.from({ length: 8 }, () => [1024 * 1024, false]));
    expect(files.slice(8).map((f) => [f.added, f.truncated])).toEqual(Array.from({ length: 4 }, () => [0, true]));
    expect(body.linesAdded).toBe(8 * 1024 * 1024);
  });
});

describe("outside a repository, and untrusted", () => {
  test("a folder that is not a repository: summaries unavailable, branches and remotes 404", async () => {
    await using plain = tempDir("svc-git-plain-");
    writeFileSync(join(plain.path, "a.txt"), "a\n");
    await using p = await fakeAgentDaemon(["--trust-workspace"], { workspace: plain.path, env });
    const wq = (path: string) => `/workspaces/${encodeURIComponent(plain.path)}${path}`;
    expect((await p.json("GET", "/workspace/git")).body).toEqual({ v: 2, workspaceCwd: plain.path, branch: null });
    expect((await p.json("GET", wq("/git?wait=1"))).body).toEqual({ v: 2, workspaceCwd: plain.path, branch: null });
    expect((await p.json("GET", "/workspace/git/diff")).body).toEqual({ v: 1, workspaceCwd: plain.path, available: false, filesCount: 0, linesAdded: 0, linesRemoved: 0, files: [], hiddenCount: 0 });
    expect((await p.json("GET", "/workspace/git/diff/file?path=a.txt")).body).toEqual({ v: 1, workspaceCwd: plain.path, path: "a.txt", available: false, hunks: [] });
    expect((await p.json("GET", "/workspace/git/log")).body).toEqual({ v: 1, workspaceCwd: plain.path, available: false, entries: [], hasMore: false });
    expect((await p.json("GET", "/workspace/git/log/commit?sha=1234567")).body).toEqual({ v: 1, workspaceCwd: plain.path, available: false });
    for (const path of ["/workspace/git/branches", wq("/git/remotes")]) {
      const res = await p.json("GET", path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, "not_a_git_repository"]);
    }
  });

  test("an untrusted workspace: every route is 403 untrusted_workspace", async () => {
    await using u = await fakeAgentDaemon([], { workspace: ws.path, env });
    const uq = (path: string) => `/workspaces/${encodeURIComponent(ws.path)}${path}`;
    const paths = ["/workspace/git", "/workspace/git?wait=1", "/workspace/git/branches", "/workspace/git/diff", "/workspace/git/diff/file?path=a.txt", "/workspace/git/log", `/workspace/git/log/commit?sha=${sha}`];
    for (const path of [...paths, ...paths.map((p) => uq(p.slice("/workspace".length))), uq("/git/remotes")]) {
      const res = await u.json("GET", path);
      expect([path, res.status, res.body]).toEqual([path, 403, { error: "Workspace is not trusted.", code: "untrusted_workspace" }]);
    }
  });
});

describe("a detached HEAD", () => {
  test("the summary names the commit's short id; branches say detached", async () => {
    await using repo = tempDir("svc-git-detached-");
    initRepo(repo.path, { "a.txt": "a\n" });
    const head = git(repo.path, "rev-parse", "HEAD").trim();
    git(repo.path, "checkout", "-q", "--detach");
    await using r = await fakeAgentDaemon(["--trust-workspace"], { workspace: repo.path, env });
    expect((await r.json("GET", "/workspace/git")).body).toMatchObject({ branch: head.slice(0, 7), detached: true });
    expect((await r.json("GET", "/workspace/git/branches")).body).toMatchObject({ head: head.slice(0, 7), detached: true });
  });
});

describe("a work tree outside the workspace", () => {
  test("a repository whose core.worktree points elsewhere is not read", async () => {
    await using repo = tempDir("svc-git-worktree-");
    initRepo(repo.path, { "secret.txt": "tracked\n" });
    writeFileSync(join(outside.path, "secret.txt"), "the user's own file\n");
    git(repo.path, "config", "core.worktree", outside.path);
    await using r = await fakeAgentDaemon(["--trust-workspace"], { workspace: repo.path, env });
    expect((await r.json("GET", "/workspace/git")).body).toEqual({ v: 2, workspaceCwd: repo.path, branch: null });
    expect((await r.json("GET", "/workspace/git/diff")).body).toMatchObject({ available: false, files: [] });
    expect((await r.json("GET", "/workspace/git/diff/file?path=secret.txt")).body).toMatchObject({ available: false, hunks: [] });
    expect((await r.json("GET", "/workspace/git/branches")).status).toBe(404);
  });
});
