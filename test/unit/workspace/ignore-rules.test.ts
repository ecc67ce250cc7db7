/** `IgnoreRules`: root and nested rule files, negation, the built-in `.git`, and why a path matched. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IgnoreRules } from "../../../src/workspace/ignore-rules.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

function tree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

describe("IgnoreRules", () => {
  test("root .gitignore and .svcignore both apply; file vs directory matches are told apart", async () => {
    await using ws = tempDir();
    tree(ws.path, { ".gitignore": "*.log\nbuild/\n", ".svcignore": "secrets.env\n" });
    const rules = new IgnoreRules(ws.path);
    expect(rules.match("debug.log", false)).toBe("file");
    expect(rules.match("secrets.env", false)).toBe("file");
    expect(rules.match("build", true)).toBe("directory");
    expect(rules.match("build/out/app.js", false)).toBe("directory");
    expect(rules.match("src/app.ts", false)).toBeNull();
    expect(rules.match("build", false)).toBeNull(); // `build/` only matches directories
    expect(rules.match("", true)).toBeNull();
  });

  test(".git is always ignored", async () => {
    await using ws = tempDir();
    const rules = new IgnoreRules(ws.path);
    expect(rules.match(".git", true)).toBe("directory");
    expect(rules.match(".git/config", false)).toBe("directory");
    expect(rules.match("sub/.git", true)).toBe("directory");
    expect(rules.match(".github/workflows/ci.yml", false)).toBeNull();
  });

  test("nested rule files apply relative to their directory, and deeper negations win", async () => {
    await using ws = tempDir();
    tree(ws.path, {
      ".gitignore": "*.gen.ts\n",
      "pkg/.gitignore": "/local.txt\n!keep.gen.ts\n",
    });
    const rules = new IgnoreRules(ws.path);
    expect(rules.match("pkg/local.txt", false)).toBe("file");
    expect(rules.match("pkg/sub/local.txt", false)).toBeNull(); // anchored to pkg/
    expect(rules.match("local.txt", false)).toBeNull();
    expect(rules.match("pkg/a.gen.ts", false)).toBe("file");
    expect(rules.match("pkg/keep.gen.ts", false)).toBeNull();
    expect(rules.match("keep.gen.ts", false)).toBe("file");
  });

  test("a file under an ignored directory cannot be re-included", async () => {
    await using ws = tempDir();
    tree(ws.path, { ".gitignore": "dist/\n!dist/keep.js\n" });
    expect(new IgnoreRules(ws.path).match("dist/keep.js", false)).toBe("directory");
  });

  test("a rule file that is a symlink out of the workspace is not read", async () => {
    await using ws = tempDir();
    await using outside = tempDir();
    writeFileSync(join(outside.path, "rules"), "*.ts\n");
    symlinkSync(join(outside.path, "rules"), join(ws.path, ".gitignore"));
    expect(new IgnoreRules(ws.path).match("a.ts", false)).toBeNull();
  });

  test("a directory's chain tests entries like match does, across the periodic rule rebuilds", async () => {
    await using ws = tempDir();
    tree(ws.path, { ".gitignore": "*.log\n", "d/.gitignore": "x.txt\n!keep.log\n" });
    const rules = new IgnoreRules(ws.path);
    const chain = rules.chainFor("d");
    expect(chain.length).toBe(2);
    expect(rules.chainFor("other").length).toBe(1);
    for (let i = 0; i < 5000; i++) {
      expect(rules.ignores(chain, `d/f${i}.log`, false)).toBe(true);
      expect(rules.ignores(chain, `d/f${i}.ts`, false)).toBe(false);
    }
    expect(rules.ignores(chain, "d/x.txt", false)).toBe(true);
    expect(rules.ignores(chain, "d/keep.log", false)).toBe(false);
    expect(rules.match("d/keep.log", false)).toBeNull();
  });
});
