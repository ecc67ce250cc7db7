/** Glob pattern validation and the walk plan (literal prefix, depth bound). */
import { describe, expect, test } from "bun:test";
import { FsError } from "../../../src/errors/daemon-error.ts";
import { planGlob, validateGlobPattern } from "../../../src/workspace/glob-plan.ts";

describe("planGlob", () => {
  test.each<[string, string, string, number | null]>([
    ["**/*.ts", "**/*.ts", "", null],
    ["*.ts", "*.ts", "", 1],
    ["src/*.ts", "src/*.ts", "src", 1],
    ["src/lib/**/*.ts", "src/lib/**/*.ts", "src/lib", null],
    ["./src/a/*.md", "src/a/*.md", "src/a", 1],
    ["src/*/index.ts", "src/*/index.ts", "src", 2],
    ["src/{a,b/c}/*.ts", "src/{a,b/c}/*.ts", "", null],
    ["src/[ab]/x.ts", "src/[ab]/x.ts", "src", 2],
    ["README.md", "README.md", "", 1],
    ["docs/README.md", "docs/README.md", "docs", 1],
  ])("%s", (given, pattern, prefix, maxDepth) => {
    expect(planGlob(given)).toEqual({ pattern, prefix, maxDepth });
  });
});

describe("validateGlobPattern", () => {
  test.each<[string, string]>([
    ["", "parse_error"],
    ["../*", "path_outside_workspace"],
    ["src/../../x", "path_outside_workspace"],
    ["/etc/*", "path_outside_workspace"],
    ["a\u0000b", "path_outside_workspace"],
    ["x".repeat(5000), "parse_error"],
  ])("refuses %j", (pattern, errorKind) => {
    let err: unknown;
    try {
      validateGlobPattern(pattern);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FsError);
    expect((err as FsError).errorKind).toBe(errorKind);
  });

  test("accepts ordinary patterns", () => {
    for (const pattern of ["**/*.ts", "src/**", "..foo/*", "*.{ts,tsx}"]) expect(() => validateGlobPattern(pattern)).not.toThrow();
  });
});
