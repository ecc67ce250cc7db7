/** `normalizeRequestPath`: which request paths become workspace-relative paths and which are refused. */
import { describe, expect, test } from "bun:test";
import { FsError } from "../../../src/errors/daemon-error.ts";
import { isInside, normalizeRequestPath } from "../../../src/workspace/paths.ts";

const ROOT = "/home/dev/project";

function refusal(raw: string, platform: NodeJS.Platform = "linux"): FsError {
  try {
    normalizeRequestPath(ROOT, raw, platform);
  } catch (err) {
    if (err instanceof FsError) return err;
    throw err;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

describe("normalizeRequestPath accepts", () => {
  test.each<[string, string]>([
    ["a.txt", "a.txt"],
    ["src/main.ts", "src/main.ts"],
    ["./src//main.ts/", "src/main.ts"],
    [".", ""],
    ["./", ""],
    ["a/./b", "a/b"],
    ["..foo/bar..", "..foo/bar.."],
    ["100%.txt", "100%.txt"],
    ["a%20b.txt", "a%20b.txt"],
    ["null.txt", "null.txt"],
    ["console.log", "console.log"],
    ["ﬁle.txt", "ﬁle.txt"],
    [`${ROOT}/src/a.ts`, "src/a.ts"],
    [`${ROOT}`, ""],
    [`${ROOT}//src/./a.ts`, "src/a.ts"],
  ])("%j as %j", (raw, rel) => {
    expect(normalizeRequestPath(ROOT, raw)).toBe(rel);
  });
});

describe("normalizeRequestPath refuses", () => {
  test.each<[string, string, string]>([
    ["parent", "..", "path_outside_workspace"],
    ["parent prefix", "../etc/passwd", "path_outside_workspace"],
    ["parent inside the path", "src/../../etc/passwd", "path_outside_workspace"],
    ["parent that would stay inside", "src/../README.md", "path_outside_workspace"],
    ["absolute outside", "/etc/passwd", "path_outside_workspace"],
    ["absolute sibling with the root as prefix", `${ROOT}-other/a`, "path_outside_workspace"],
    ["absolute traversal out of the root", `${ROOT}/../other`, "path_outside_workspace"],
    ["NUL byte", "a.txt\u0000.png", "path_outside_workspace"],
    ["newline", "a\nb", "path_outside_workspace"],
    ["encoded dot left after decoding", "%2e%2e/etc", "path_outside_workspace"],
    ["encoded slash left after decoding", "..%2fetc", "path_outside_workspace"],
    ["double-encoded percent", "%252e%252e", "path_outside_workspace"],
    ["encoded backslash", "..%5c..%5cetc", "path_outside_workspace"],
    ["encoded NUL", "a%00b", "path_outside_workspace"],
    ["overlong UTF-8 escape", "%c0%ae%c0%ae/etc", "path_outside_workspace"],
    ["IIS unicode escape", "%u002e%u002e/etc", "path_outside_workspace"],
    ["backslash traversal", "..\\..\\etc", "path_outside_workspace"],
    ["drive letter", "C:/Windows/win.ini", "path_outside_workspace"],
    ["fullwidth dots and slash", "\uff0e\uff0e\uff0fetc", "path_outside_workspace"],
    ["fullwidth solidus to absolute", "\uff0fetc/passwd", "path_outside_workspace"],
    ["NTFS stream", "file.txt::$DATA", "path_outside_workspace"],
    ["empty", "", "parse_error"],
    ["path over PATH_MAX", "a/".repeat(2100), "parse_error"],
    ["segment over NAME_MAX", "x".repeat(256), "parse_error"],
  ])("%s", (_what, raw, errorKind) => {
    const err = refusal(raw);
    expect(err.errorKind).toBe(errorKind);
    expect(err.status).toBe(400);
    expect(JSON.stringify(err.body())).not.toContain("/etc");
  });
});

const DEVICE_NAMES: [string, string][] = [
  ["nul", "nul"],
  ["src/NUL.txt", "src/NUL.txt"],
  ["con.tar.gz", "con.tar.gz"],
  ["aux .md", "aux .md"],
  ["aux.c", "aux.c"],
  ["con/", "con"],
  ["con/x.ts", "con/x.ts"],
  ["COM1", "COM1"],
  ["lpt9.log", "lpt9.log"],
  ["\uff43\uff4f\uff4e", "\uff43\uff4f\uff4e"],
];

describe("Windows device names", () => {
  test.each(DEVICE_NAMES)("%j is refused on Windows", (raw) => {
    const err = refusal(raw, "win32");
    expect(err.errorKind).toBe("path_outside_workspace");
    expect(err.message).toContain("reserved device name");
  });
  test.each(DEVICE_NAMES)("%j is an ordinary name on Linux and macOS", (raw, rel) => {
    expect(normalizeRequestPath(ROOT, raw, "linux")).toBe(rel);
    expect(normalizeRequestPath(ROOT, raw, "darwin")).toBe(rel);
  });
});

describe("isInside", () => {
  test("the root and paths below it, not siblings sharing its prefix", () => {
    expect(isInside(ROOT, ROOT)).toBe(true);
    expect(isInside(ROOT, `${ROOT}/a`)).toBe(true);
    expect(isInside(ROOT, `${ROOT}-other`)).toBe(false);
    expect(isInside(ROOT, "/home/dev")).toBe(false);
    expect(isInside("/", "/anything")).toBe(true);
  });
});
