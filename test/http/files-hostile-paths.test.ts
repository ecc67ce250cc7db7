/**
 * Hostile paths against every file route: traversal spellings, encodings left after decoding, NUL,
 * absolute paths, overlong names, symlinks out (final, intermediate, dangling, and
 * links to such links), and a directory swapped for a symlink while requests run. Each is refused with the right kind, no
 * body ever names an absolute path, and nothing outside is read or written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDaemon, REPO_ROOT, type TestDaemon } from "../helpers/daemon.ts";
import { fileRoutes, sha256, writeTree, type FileRouteResponse } from "../helpers/file-routes.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const SECRET = "OUTSIDE-SECRET";
let d: TestDaemon;
let outside: TempDir;
let files: ReturnType<typeof fileRoutes>;

beforeAll(async () => {
  d = await startDaemon(["--token", "t", "--trust-workspace"]);
  files = fileRoutes(d, "t");
  outside = tempDir("svc-outside-");
  writeTree(outside.path, { "secret.txt": SECRET, "only-outside.txt": SECRET, "race/file.txt": SECRET, "race/only-outside.txt": SECRET });
  writeTree(d.workspace, { "ok.txt": "inside\n", "race/file.txt": "inside\n" });
  symlinkSync(join(outside.path, "secret.txt"), join(d.workspace, "out-file"));
  symlinkSync(outside.path, join(d.workspace, "out-dir"));
  symlinkSync(join(outside.path, "nothing-here"), join(d.workspace, "dangling-out"));
  mkdirSync(join(d.workspace, "sub"));
  symlinkSync("../../../../../../../..", join(d.workspace, "sub", "up"));
  // Links inside the workspace pointing at the links above: each hop stays inside, the last leaves.
  symlinkSync("out-file", join(d.workspace, "chain-file"));
  symlinkSync(join(d.workspace, "dangling-out"), join(d.workspace, "chain-dangling"));
  symlinkSync("sub/../out-dir", join(d.workspace, "chain-dir"));
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
  await outside[Symbol.asyncDispose]();
});

/**
 * No response body may name an absolute path: not the workspace, not the outside dir, nor any path
 * starting at /etc or the temp dir (a relative path the caller sent, like `sub/up/etc`, may be echoed).
 */
function expectNoAbsolutePaths(r: FileRouteResponse): void {
  for (const leak of [d.workspace, outside.path, SECRET]) expect(r.text).not.toContain(leak);
  for (const root of ["/etc", tmpdir()]) expect(r.text).not.toMatch(new RegExp(`(^|[^\\w.~-])${root}\\b`));
}

function expectOutsideUntouched(): void {
  expect(readdirSync(outside.path).sort()).toEqual(["only-outside.txt", "race", "secret.txt"]);
  expect(readFileSync(join(outside.path, "secret.txt"), "utf8")).toBe(SECRET);
}

/** [what, the `path` query value exactly as sent (already percent-encoded), expected errorKind]. */
const HOSTILE: [string, () => string, string][] = [
  ["parent", () => "..", "path_outside_workspace"],
  ["parent traversal", () => "..%2F..%2F..%2Fetc%2Fpasswd", "path_outside_workspace"],
  ["traversal after a real directory", () => "sub%2F..%2F..%2Fetc%2Fpasswd", "path_outside_workspace"],
  ["encoded traversal (decoded once by the framework)", () => "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "path_outside_workspace"],
  ["double-encoded traversal", () => "%252e%252e%252f%252e%252e%252fetc%252fpasswd", "path_outside_workspace"],
  ["triple-encoded traversal", () => "%25252e%25252e%25252fetc", "path_outside_workspace"],
  ["double-encoded overlong UTF-8 dots", () => "%25c0%25ae%25c0%25ae%252fetc", "path_outside_workspace"],
  ["backslash traversal", () => "..%5C..%5Cetc%5Cpasswd", "path_outside_workspace"],
  ["fullwidth dots and solidus", () => encodeURIComponent("\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc"), "path_outside_workspace"],
  ["NUL byte", () => "ok.txt%00.png", "path_outside_workspace"],
  ["absolute outside", () => "%2Fetc%2Fpasswd", "path_outside_workspace"],
  ["absolute to the outside dir", () => encodeURIComponent(join(outside.path, "secret.txt")), "path_outside_workspace"],
  ["absolute climbing out of the workspace", () => encodeURIComponent(`${d.workspace}/../x`), "path_outside_workspace"],
  ["absolute sibling sharing the prefix", () => encodeURIComponent(`${d.workspace}-evil/x`), "path_outside_workspace"],
  ["drive letter", () => "C%3A%5CWindows%5Cwin.ini", "path_outside_workspace"],
  ["overlong segment", () => "a".repeat(300), "parse_error"],
  ["overlong path", () => "a%2F".repeat(2100), "parse_error"],
  ["symlink to an outside file", () => "out-file", "symlink_escape"],
  ["symlinked directory leading outside", () => "out-dir%2Fsecret.txt", "symlink_escape"],
  ["relative symlink climbing to /", () => "sub%2Fup%2Fetc%2Fpasswd", "symlink_escape"],
  ["dangling symlink to outside", () => "dangling-out", "symlink_escape"],
  ["symlink to a symlink to an outside file", () => "chain-file", "symlink_escape"],
  ["symlink to a dangling symlink to outside", () => "chain-dangling", "symlink_escape"],
  ["symlink to a symlinked directory leading outside", () => "chain-dir%2Fsecret.txt", "symlink_escape"],
  ["symlink to a symlinked directory leading outside, itself", () => "chain-dir", "symlink_escape"],
];

describe.each(["/file", "/file/bytes", "/list", "/stat"])("GET %s refuses hostile paths", (route) => {
  test.each(HOSTILE)("%s", async (_what, path, errorKind) => {
    const r = await files.get(route, `path=${path()}`);
    expect(r.body).toMatchObject({ errorKind, status: 400 });
    expect(r.status).toBe(400);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expectNoAbsolutePaths(r);
  });
});

describe("what stays visible of links that escape", () => {
  test("/list of their directory names them as symlinks, nothing of their targets", async () => {
    const r = await files.get("/list", { path: "." });
    expect(r.status).toBe(200);
    const links = r.body.entries.filter((e: { kind: string }) => e.kind === "symlink").map((e: { name: string }) => e.name);
    expect(links.sort()).toEqual(["chain-dangling", "chain-dir", "chain-file", "dangling-out", "out-dir", "out-file"]);
    expectNoAbsolutePaths(r);
  });

  test("/glob never returns them, even with a pattern naming them", async () => {
    for (const pattern of ["*", "**/*", "chain-*", "out-*", "chain-dir/*", "out-dir/*"]) {
      const r = await files.get("/glob", { pattern, includeIgnored: "true" });
      expect(r.status).toBe(200);
      expect(r.body.matches.filter((m: string) => /out|chain|dangling|up\//.test(m))).toEqual([]);
      expectNoAbsolutePaths(r);
    }
  });
});

describe("GET /glob refuses hostile cwds", () => {
  test.each(HOSTILE.filter(([what]) => !what.includes("file") && !what.includes("NUL")))("%s", async (_what, path, errorKind) => {
    const r = await files.get("/glob", `pattern=*&cwd=${path()}`);
    expect(r.body.errorKind).toBe(errorKind);
    expectNoAbsolutePaths(r);
  });
});

describe("writes refuse hostile paths and write nothing outside", () => {
  test.each(HOSTILE)("%s", async (_what, path, errorKind) => {
    const raw = decodeURIComponent(path());
    const create = await files.post("/file/write", { path: raw, content: "pwned", mode: "create" });
    const replace = await files.post("/file/write", { path: raw, content: "pwned", mode: "replace", expectedHash: sha256(SECRET) });
    const edit = await files.post("/file/edit", { path: raw, oldText: SECRET, newText: "pwned", expectedHash: sha256(SECRET) });
    for (const r of [create, replace, edit]) {
      expect(r.body).toMatchObject({ errorKind, status: 400 });
      expectNoAbsolutePaths(r);
    }
    expectOutsideUntouched();
  });
});

describe("a directory swapped for a symlink while requests run", () => {
  test("no read returns outside content, no listing shows outside names, no write lands outside", async () => {
    const swapper = Bun.spawn([process.execPath, join(REPO_ROOT, "test", "fixtures", "dir-swapper.ts"), join(d.workspace, "race"), join(outside.path, "race")], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      const reader = swapper.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("ready");
      const seen = { ok: 0, refused: 0 };
      let rounds = 0;
      await until(
        async () => {
          const [file, bytes, list, write] = await Promise.all([
            files.get("/file", { path: "race/file.txt" }),
            files.get("/file/bytes", { path: "race/file.txt" }),
            files.get("/list", { path: "race" }),
            files.post("/file/write", { path: "race/file.txt", content: "inside\n", mode: "replace", expectedHash: sha256("inside\n") }),
          ]);
          for (const r of [file, bytes, list, write]) {
            expect(r.text).not.toContain(SECRET);
            expect(r.text).not.toContain(Buffer.from(SECRET).toString("base64"));
            expect(r.text).not.toContain("only-outside");
            expectNoAbsolutePaths(r);
            if (r.status < 300) seen.ok++;
            else {
              expect(["symlink_escape", "path_not_found"]).toContain(r.body.errorKind);
              seen.refused++;
            }
          }
          if (file.status === 200) expect(file.body.content).toBe("inside\n");
          return ++rounds >= 50 && seen.ok >= 20 && seen.refused >= 20;
        },
        20_000,
        "the swap race to be exercised",
      );
    } finally {
      swapper.kill("SIGKILL");
      await swapper.exited;
    }
    expect(readdirSync(join(outside.path, "race")).sort()).toEqual(["file.txt", "only-outside.txt"]);
    expectOutsideUntouched();
  }, 30_000);
});
