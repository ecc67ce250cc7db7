/** `GET /list` and `GET /glob`: entries, ignore flags, caps and truncation, symlinks never followed. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { fileRoutes, writeTree } from "../helpers/file-routes.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

let d: TestDaemon;
let outside: TempDir;
let files: ReturnType<typeof fileRoutes>;

beforeAll(async () => {
  d = await startDaemon();
  files = fileRoutes(d);
  outside = tempDir("svc-out-");
  writeTree(outside.path, { "secret.ts": "outside", "deep/other.ts": "outside" });
  writeTree(d.workspace, {
    ".gitignore": "node_modules/\n*.log\n",
    ".svcignore": "private/\n",
    "README.md": "#",
    "src/a.ts": "",
    "src/b.tsx": "",
    "src/lib/c.ts": "",
    "src/lib/deep/d.ts": "",
    "src/gen/.gitignore": "*.gen.ts\n",
    "src/gen/x.gen.ts": "",
    "src/gen/y.ts": "",
    "node_modules/pkg/index.ts": "",
    "private/key.ts": "",
    "debug.log": "",
    ".git/HEAD": "ref",
    ".hidden/h.ts": "",
  });
  symlinkSync(outside.path, join(d.workspace, "src", "outlink"));
  symlinkSync(join(outside.path, "secret.ts"), join(d.workspace, "src", "secret-link.ts"));
  symlinkSync("lib", join(d.workspace, "src", "lib-alias"));
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
  await outside[Symbol.asyncDispose]();
});

describe("GET /list", () => {
  test("lists a directory sorted by name, leaving ignored entries out", async () => {
    const r = await files.get("/list", { path: "." });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: "list",
      path: ".",
      entries: [
        { name: ".gitignore", kind: "file", ignored: false },
        { name: ".hidden", kind: "directory", ignored: false },
        { name: ".svcignore", kind: "file", ignored: false },
        { name: "README.md", kind: "file", ignored: false },
        { name: "src", kind: "directory", ignored: false },
      ],
      truncated: false,
      matchedIgnore: null,
    });
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  test("includeIgnored adds them, flagged", async () => {
    for (const flag of ["1", "true", ""]) {
      const r = await files.get("/list", `path=.&includeIgnored=${flag}`);
      const ignored = r.body.entries.filter((e: { ignored: boolean }) => e.ignored).map((e: { name: string }) => e.name);
      expect(ignored).toEqual([".git", "debug.log", "node_modules", "private"]);
    }
    const off = await files.get("/list", { path: ".", includeIgnored: "0" });
    expect(off.body.entries.some((e: { ignored: boolean }) => e.ignored)).toBe(false);
  });

  test("symlinks are listed as symlinks, nested rule files apply", async () => {
    const r = await files.get("/list", { path: "src", includeIgnored: 1 });
    expect(r.body.entries).toEqual([
      { name: "a.ts", kind: "file", ignored: false },
      { name: "b.tsx", kind: "file", ignored: false },
      { name: "gen", kind: "directory", ignored: false },
      { name: "lib", kind: "directory", ignored: false },
      { name: "lib-alias", kind: "symlink", ignored: false },
      { name: "outlink", kind: "symlink", ignored: false },
      { name: "secret-link.ts", kind: "symlink", ignored: false },
    ]);
    const gen = await files.get("/list", { path: "src/gen", includeIgnored: 1 });
    expect(gen.body.entries).toContainEqual({ name: "x.gen.ts", kind: "file", ignored: true });
  });

  test("an ignored directory says so, and its entries count as ignored", async () => {
    const r = await files.get("/list", { path: "node_modules" });
    expect(r.body).toMatchObject({ entries: [], matchedIgnore: "directory" });
    const all = await files.get("/list", { path: "node_modules", includeIgnored: 1 });
    expect(all.body.entries).toEqual([{ name: "pkg", kind: "directory", ignored: true }]);
  });

  test("a symlinked directory inside the workspace lists; one leading outside is refused", async () => {
    expect((await files.get("/list", { path: "src/lib-alias" })).body.entries.map((e: { name: string }) => e.name)).toEqual(["c.ts", "deep"]);
    const out = await files.get("/list", { path: "src/outlink" });
    expect(out.status).toBe(400);
    expect(out.body.errorKind).toBe("symlink_escape");
    expect(out.text).not.toContain(outside.path);
  });

  test("a file is 400 parse_error; a missing directory is 404", async () => {
    const file = await files.get("/list", { path: "README.md" });
    expect(file.status).toBe(400);
    expect(file.body).toMatchObject({ errorKind: "parse_error", hint: expect.stringContaining("ENOTDIR") });
    expect((await files.get("/list", { path: "nope" })).status).toBe(404);
    expect((await files.get("/list", {})).body).toEqual({ errorKind: "parse_error", error: "path is required", status: 400 });
  });

  test("stops at 2000 entries and says truncated", async () => {
    const many = join(d.workspace, "many");
    mkdirSync(many);
    for (let i = 0; i < 2100; i++) writeFileSync(join(many, `f${i}`), "");
    const r = await files.get("/list", { path: "many" });
    expect(r.body.entries.length).toBe(2000);
    expect(r.body.truncated).toBe(true);
  });
});

describe("GET /glob", () => {
  test("matches files under the workspace, workspace-relative and sorted", async () => {
    const r = await files.get("/glob", { pattern: "**/*.ts" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: "glob",
      pattern: "**/*.ts",
      cwd: "",
      matches: [".hidden/h.ts", "src/a.ts", "src/gen/y.ts", "src/lib/c.ts", "src/lib/deep/d.ts"],
      count: 5,
      truncated: false,
      durationMs: expect.any(Number),
    });
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("symlinks are neither followed nor returned, whatever includeIgnored says", async () => {
    const r = await files.get("/glob", { pattern: "**/*", includeIgnored: 1 });
    expect(r.body.matches).not.toContain("src/secret-link.ts");
    expect(r.body.matches.some((m: string) => m.includes("outlink") || m.includes("lib-alias"))).toBe(false);
    expect(r.text).not.toContain("other.ts");
  });

  test("includeIgnored adds ignored files, .git included", async () => {
    const r = await files.get("/glob", { pattern: "**/*.ts", includeIgnored: "true" });
    expect(r.body.matches).toEqual([
      ".hidden/h.ts",
      "node_modules/pkg/index.ts",
      "private/key.ts",
      "src/a.ts",
      "src/gen/x.gen.ts",
      "src/gen/y.ts",
      "src/lib/c.ts",
      "src/lib/deep/d.ts",
    ]);
    expect((await files.get("/glob", { pattern: ".git/*" })).body.matches).toEqual([]);
    expect((await files.get("/glob", { pattern: ".git/*", includeIgnored: 1 })).body.matches).toEqual([".git/HEAD"]);
  });

  test("cwd scopes the pattern; matches stay workspace-relative", async () => {
    const r = await files.get("/glob", { pattern: "*.ts", cwd: "src/lib" });
    expect(r.body).toMatchObject({ cwd: "src/lib", matches: ["src/lib/c.ts"] });
    expect((await files.get("/glob", { pattern: "lib/**/*.ts", cwd: "src" })).body.matches).toEqual(["src/lib/c.ts", "src/lib/deep/d.ts"]);
    expect((await files.get("/glob", { pattern: "src/*.{ts,tsx}" })).body.matches).toEqual(["src/a.ts", "src/b.tsx"]);
  });

  test("a literal prefix that does not exist, or is a symlink, matches nothing", async () => {
    expect((await files.get("/glob", { pattern: "missing/*.ts" })).body.matches).toEqual([]);
    expect((await files.get("/glob", { pattern: "src/outlink/*.ts" })).body.matches).toEqual([]);
  });

  test("maxResults truncates", async () => {
    const r = await files.get("/glob", { pattern: "**/*.ts", maxResults: 2 });
    expect(r.body.count).toBe(2);
    expect(r.body.truncated).toBe(true);
    const exact = await files.get("/glob", { pattern: "**/*.ts", maxResults: 5 });
    expect(exact.body).toMatchObject({ count: 5, truncated: false });
  });

  test("directories deeper than 64 levels are not entered, and the result says truncated", async () => {
    const deep = Array.from({ length: 70 }, () => "d").join("/");
    writeTree(d.workspace, { [`deep/${deep}/bottom.ts`]: "", "deep/top.ts": "" });
    const r = await files.get("/glob", { pattern: "**/*.ts", cwd: "deep" });
    expect(r.body).toMatchObject({ matches: ["deep/top.ts"], truncated: true });
  });

  test.each<[string, Record<string, string | number>, number, string]>([
    ["no pattern", {}, 400, "parse_error"],
    ["maxResults 0", { pattern: "*", maxResults: 0 }, 400, "parse_error"],
    ["maxResults over 50000", { pattern: "*", maxResults: 50001 }, 400, "parse_error"],
    ["a pattern climbing out", { pattern: "../*" }, 400, "path_outside_workspace"],
    ["an absolute pattern", { pattern: "/etc/*" }, 400, "path_outside_workspace"],
    ["a cwd outside", { pattern: "*", cwd: "../.." }, 400, "path_outside_workspace"],
    ["a cwd through a symlink out", { pattern: "*", cwd: "src/outlink" }, 400, "symlink_escape"],
    ["a missing cwd", { pattern: "*", cwd: "nope" }, 404, "path_not_found"],
    ["a cwd that is a file", { pattern: "*", cwd: "README.md" }, 400, "parse_error"],
  ])("%s is %d %s", async (_what, query, status, errorKind) => {
    const r = await files.get("/glob", query);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ errorKind, status });
    expect(r.text).not.toContain(d.workspace);
    expect(r.text).not.toContain(outside.path);
  });
});
