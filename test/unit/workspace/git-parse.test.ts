/** The git output parsers and the safe invocation's pure parts, on output as git prints it and cut at a bound. */
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { configEnv, filterNames, gitEnv } from "../../../src/workspace/git/git-args.ts";
import {
  countStatusEntries,
  deletedPaths,
  parseBranchLines,
  parseFileHunks,
  parseLogRecords,
  parseNumstat,
  parseRecentBranches,
  parseRemotes,
  parseShortstat,
  parseStatusBranchLine,
} from "../../../src/workspace/git/git-parse.ts";
import { withoutCredentials } from "../../../src/workspace/git/git-refs.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

test("the status branch line: upstream distance, unborn and detached heads", () => {
  expect(parseStatusBranchLine("## main...origin/main [ahead 2, behind 1]")).toEqual({ branch: "main", detached: false, hasUpstream: true, ahead: 2, behind: 1 });
  expect(parseStatusBranchLine("## No commits yet on trunk")).toEqual({ branch: "trunk", detached: false, hasUpstream: false, ahead: 0, behind: 0 });
  expect(parseStatusBranchLine("## HEAD (no branch)")).toMatchObject({ branch: null, detached: true });
  expect(parseStatusBranchLine("garbage")).toMatchObject({ branch: null, detached: false });
});

test("status entries: a rename's source path is not counted as an entry", () => {
  expect(countStatusEntries(["R  new", "old", " M a", "MM b", "?? c", "UU d", "!! e"])).toEqual({ staged: 2, unstaged: 2, untracked: 1, conflicted: 1 });
});

test("numstat with renames and binaries; a record cut at the bound is dropped", () => {
  const out = "1\t2\ta.txt\0-\t-\timg.png\0" + "3\t0\t\0old.txt\0new.txt\0" + "4\t4\tcut";
  expect(parseNumstat(out, true)).toEqual([
    { path: "a.txt", added: 1, removed: 2, isBinary: false },
    { path: "img.png", added: 0, removed: 0, isBinary: true },
    { path: "new.txt", oldPath: "old.txt", added: 3, removed: 0, isBinary: false },
  ]);
  expect(deletedPaths("M\0a\0D\0gone\0R100\0x\0y\0D\0also\0", false)).toEqual(new Set(["gone", "also"]));
  expect(parseShortstat(" 3 files changed, 10 insertions(+), 1 deletion(-)\n")).toEqual({ filesCount: 3, linesAdded: 10, linesRemoved: 1 });
});

test("a file's hunks stop at 400 lines and say so", () => {
  const body = Array.from({ length: 500 }, (_, i) => `+l${i}`).join("\n");
  const { hunks, truncated } = parseFileHunks(`diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1,500 @@\n${body}\n`, false);
  expect([hunks.length, hunks[0]!.lines.length, truncated]).toEqual([1, 400, true]);
  expect(parseFileHunks("@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n", false)).toEqual({ hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b", "\\ No newline at end of file"] }], truncated: false });
});

test("log records; a record cut at the bound is dropped", () => {
  const sha = "a".repeat(40);
  const rec = (s: string, subject: string) => [s, s.slice(0, 7), "T", "t@e", "170", subject, "", "p1 p2", "171", ""].join("\0");
  const out = `${rec(sha, "one")}\0${rec("b".repeat(40), "two")}`;
  const parsed = parseLogRecords(out, false);
  expect(parsed.map((r) => [r.entry.subject, r.entry.parents, r.last])).toEqual([["one", ["p1", "p2"], "171"], ["two", ["p1", "p2"], "171"]]);
  expect("refs" in parsed[0]!.entry).toBe(false);
  expect(parseLogRecords(out.slice(0, -3), true).map((r) => r.entry.subject)).toEqual(["one"]);
});

test("branches, recent checkouts and remotes", () => {
  const line = (name: string, head: string, up: string, track: string, symref = "") => [name, head, up, track, "100", "subj", symref, "", ""].join("\0");
  expect(parseBranchLines([line("main", "*", "origin/main", "ahead 1"), line("old", " ", "origin/old", "gone"), line("origin/HEAD", " ", "", "", "refs/remotes/origin/main")].join("\n"), false)).toEqual([
    { name: "main", isHead: true, upstream: "origin/main", ahead: 1, behind: 0, commitDate: 100, commitSubject: "subj" },
    { name: "old", isHead: false, upstream: "origin/old", upstreamGone: true, ahead: 0, behind: 0, commitDate: 100, commitSubject: "subj" },
  ]);
  expect(parseRecentBranches("checkout: moving from a to b\ncheckout: moving from b to main\ncheckout: moving from main to abcdef1\ncommit: x\ncheckout: moving from x to b\n", "main")).toEqual(["b"]);
  const config = ["local", "remote.origin.url\nhttps://e/r.git", "local", "remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*", "global", "remote.up.url\nx", "local", "remote.origin.tagopt\n--no-tags", "local", "remote.origin.url\nsecond"].join("\0") + "\0";
  expect(parseRemotes(config, false)).toEqual([{ name: "origin", fetchUrl: "https://e/r.git", pushUrl: "https://e/r.git", extraFetchUrls: 1, extraPushUrls: 1, promisor: false, customRefspec: false, otherSettings: 1 }]);
  expect(withoutCredentials("https://user:tok@host/r.git")).toBe("https://***@host/r.git");
  expect(withoutCredentials("git@host:r.git")).toBe("git@host:r.git");
  expect(withoutCredentials("https://u:SEC@RET4@host/r.git")).toBe("https://***@host/r.git");
  expect(withoutCredentials("https://host/r.git?private_token=SECRET1")).toBe("https://host/r.git?***");
  expect(withoutCredentials("https://host?t=S#frag")).toBe("https://host?***");
  expect(withoutCredentials("https://host/r.git#SECRET2")).toBe("https://host/r.git#***");
  expect(withoutCredentials("ssh://git@host:22/r.git")).toBe("ssh://***@host:22/r.git");
});

test("filter drivers are found by name (dotted, with '=', empty), only under the guard, and each is emptied", () => {
  expect(filterNames("filter.lfs.clean\0filter.lfs.process\0filter.a.b.smudge\0filter.x=y.clean\0filter..clean\0svc.viewsguard\0")).toEqual(["lfs", "a.b", "x=y", ""]);
  expect(filterNames("filter.lfs.clean\0")).toBeNull();
  const env = configEnv(["x=y", ""]);
  const pairs = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`);
  for (const key of ["clean", "smudge", "process"]) expect(pairs).toContain(`filter.x=y.${key}=`), expect(pairs).toContain(`filter..${key}=`);
  expect(pairs).toContain("core.fsmonitor=false");
  expect(pairs).toContain("svc.viewsguard=1");
});

test("the environment: no inherited GIT_*, no secrets, no relative or in-workspace PATH entries", async () => {
  await using ws = tempDir("svc-git-env-");
  mkdirSync(join(ws.path, "tools"));
  const env = gitEnv({ PATH: `bin:${ws.path}/tools:/usr/bin`, HOME: "/h", GIT_DIR: "/x", GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='x'", OPENAI_API_KEY: "k", GH_TOKEN: "t", SSH_ASKPASS: "/x" }, ws.path);
  expect(env).toEqual({ PATH: "/usr/bin", HOME: "/h", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", GIT_NO_LAZY_FETCH: "1", GIT_ALLOW_PROTOCOL: "", GIT_PAGER: "cat", PAGER: "cat", LC_ALL: "C", LANG: "C" });
});
