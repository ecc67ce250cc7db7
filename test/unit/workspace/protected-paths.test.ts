/** The protected-path rule: workspace-relative paths, shell spellings with globs, and paths through symlinks. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeRequestPath } from "../../../src/workspace/paths.ts";
import { protectedPatternRule, protectedRule } from "../../../src/workspace/protected-paths.ts";
import { protectedTarget } from "../../../src/workspace/protected-target.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const ROOT = "/home/dev/project";
/** The rule of a path as a tool receives it: normalized the way the tools normalize it first. */
const ruleOfRequest = (raw: string) => protectedRule(normalizeRequestPath(ROOT, raw));

describe("protectedRule", () => {
  test.each<[string, string]>([
    [".git", ".git/"],
    [".git/config", ".git/"],
    [".git/hooks/pre-commit", ".git/"],
    [".svc/settings.json", ".svc/"],
    [".qwen/settings.json", ".qwen/"],
    [".claude/settings.local.json", ".claude/"],
    [".gemini/settings.json", ".gemini/"],
    [".codex/config.toml", ".codex/"],
    [".opencode/opencode.json", ".opencode/"],
    [".vscode/tasks.json", ".vscode/"],
    [".idea/workspace.xml", ".idea/"],
    [".husky/pre-commit", ".husky/"],
    [".github/workflows", ".github/workflows/"],
    [".github/workflows/ci.yml", ".github/workflows/"],
    [".env", ".env*"],
    [".env.local", ".env*"],
    [".envrc", ".env*"],
    ["config/.env.production", ".env*"],
    ["vendor/lib/.git/config", ".git/"],
    ["packages/app/.svc/settings.json", ".svc/"],
    ["packages/app/.github/workflows/release.yml", ".github/workflows/"],
  ])("%j is protected (%s)", (rel, rule) => {
    expect(protectedRule(rel)).toBe(rule);
  });

  test.each([".GIT/config", ".Git/config", ".SVC/settings.json", ".git./config", ".git /config", ".GitHub/Workflows/ci.yml", ".ENV", ".Env.local"])(
    "%j is protected: a case-insensitive file system takes it for the protected name",
    (rel) => {
      expect(protectedRule(rel)).not.toBeNull();
    },
  );

  test.each(["", "src/main.ts", ".gitignore", ".gitattributes", ".github/CODEOWNERS", ".github/ISSUE_TEMPLATE/bug.md", "git/config", "env", "my.env", "docs/.github", ".svcrc", "x.git/config"])(
    "%j is not protected",
    (rel) => {
      expect(protectedRule(rel)).toBeNull();
    },
  );

  test.each(["./.git/config", ".//.git//config", ".git/config/", "./.svc/", `${ROOT}/.git/config`, `${ROOT}//.env`])("%j, as the tools normalize it, is protected", (raw) => {
    expect(ruleOfRequest(raw)).not.toBeNull();
  });

  test("a path climbing back into a protected folder is refused before the rule is asked", () => {
    expect(() => normalizeRequestPath(ROOT, "a/../.git/config")).toThrow(/'\.\.' segments/);
  });
});

describe("protectedPatternRule (shell spellings)", () => {
  test.each<[string, string]>([
    [".git/config", ".git/"],
    ["./.git/config", ".git/"],
    ["a/../.git/config", ".git/"],
    ["../.git/config", ".git/"],
    [".gi?/config", ".git/"],
    [".g[i]t/config", ".git/"],
    [".G*/config", ".git/"],
    [".*", ".git/"],
    [".{g,x}it/config", ".git/"],
    ["{src,.svc}/settings.json", ".svc/"],
    [".e*", ".env*"],
    [".github", ".github/workflows/"],
    [".github/*", ".github/workflows/"],
    [".github/work*/ci.yml", ".github/workflows/"],
  ])("%j may reach %s", (word, rule) => {
    expect(protectedPatternRule(word)).toBe(rule);
  });

  test.each(["*", "src/*", "*.ts", "?git", "[.]git", "{print", "{}", "[", "git", ".gitignore", "docs/*.md", ".github/CODEOWNERS"])("%j cannot", (word) => {
    expect(protectedPatternRule(word)).toBeNull();
  });

  test("a brace expansion too large to check counts as reaching one", () => {
    expect(protectedPatternRule("{a,b}".repeat(9))).not.toBeNull();
    expect(protectedPatternRule("{a,b}".repeat(4))).toBeNull();
  });
});

describe("protectedTarget (through symlinks)", () => {
  test("a link to a protected file, a link to a protected folder, and links dangling into one", async () => {
    await using dir = tempDir("svc-protected-");
    const root = realpathSync(dir.path);
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git", "config"), "[core]\n");
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "a.ts"), "");
    symlinkSync(".git/config", join(root, "notes.txt"));
    symlinkSync(".git", join(root, "cfg"));
    symlinkSync("../.git", join(root, "src", "up"));
    symlinkSync("src", join(root, "code"));
    symlinkSync("/tmp", join(root, "outside"));
    expect(await protectedTarget(root, "notes.txt")).toEqual({ rel: ".git/config", rule: ".git/" });
    expect(await protectedTarget(root, "cfg/config")).toEqual({ rel: ".git/config", rule: ".git/" });
    expect(await protectedTarget(root, "cfg/hooks/pre-commit")).toEqual({ rel: ".git/hooks/pre-commit", rule: ".git/" });
    expect(await protectedTarget(root, "src/up/config")).toEqual({ rel: ".git/config", rule: ".git/" });
    expect(await protectedTarget(root, ".git/config")).toEqual({ rel: ".git/config", rule: ".git/" });
    expect(await protectedTarget(root, "code/a.ts")).toBeNull();
    expect(await protectedTarget(root, "src/new/deeper.ts")).toBeNull();
    expect(await protectedTarget(root, "outside/x")).toBeNull();
  });
});
