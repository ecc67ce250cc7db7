/**
 * The skill catalogue's rules on real folders: the SKILL.md format and its checks, precedence and
 * duplicates, `skills.disabled` (case-insensitive, extension skills by either name), the size
 * bound, links (a linked skill folder is not followed; a SKILL.md linked outside its root is not
 * read), and untrusted workspaces.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { invocable, loadSkills, MAX_SKILL_FILE_BYTES } from "../../../src/builtin-agent/skills/skill-catalog.ts";
import { parseSkill, SkillParseError } from "../../../src/builtin-agent/skills/skill-file.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const skill = (name: string, extra = "") => `---\nname: ${name}\ndescription: does ${name}\n${extra}---\nbody of ${name}\n`;
function put(dir: string, folder: string, text: string) {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, "SKILL.md"), text);
}

describe("SKILL.md", () => {
  test("front matter fields", () => {
    expect(parseSkill(skill("a", "argument-hint: '[x]'\ndisable-model-invocation: true\nuser-invocable: false\n"))).toEqual({
      name: "a",
      description: "does a",
      argumentHint: "[x]",
      modelInvocable: false,
      userInvocable: false,
      body: "body of a",
    });
    expect(parseSkill("\uFEFF---\r\nname: b\r\ndescription: d\r\n---\r\nx\r\n").body).toBe("x");
  });

  test.each([
    ["no front matter", "just text"],
    ["no name", "---\ndescription: d\n---\nx"],
    ["no description", "---\nname: a\n---\nx"],
    ["a name with a slash", "---\nname: a/b\ndescription: d\n---\nx"],
    ["a name with a colon (reserved for extensions)", "---\nname: a:b\ndescription: d\n---\nx"],
    ["a name too long", `---\nname: ${"a".repeat(65)}\ndescription: d\n---\nx`],
    ["front matter that is a list", "---\n- a\n---\nx"],
    ["bad YAML", "---\nname: [\n---\nx"],
  ])("refused: %s", (_, text) => {
    expect(() => parseSkill(text)).toThrow(SkillParseError);
  });
});

describe("catalogue", () => {
  test("project before user before extension; first of a name wins; disabled by either spelling", async () => {
    await using ws = tempDir("k-cat-ws-");
    await using data = tempDir("k-cat-data-");
    await using ext = tempDir("k-cat-ext-");
    put(join(ws.path, ".svc", "skills"), "one", skill("Shared"));
    put(join(ws.path, ".qwen", "skills"), "two", skill("qwen-only"));
    put(join(data.path, "skills"), "three", skill("shared", "").replace("body of shared", "user body"));
    put(join(data.path, "skills"), "four", skill("mine"));
    put(join(ext.path, "skills"), "five", skill("pdf"));
    const extensions = [{ level: "extension" as const, dir: join(ext.path, "skills"), root: ext.path, extensionName: "office" }];
    const all = loadSkills({ workspace: ws.path, dataDir: data.path, trusted: true, extensions, disabled: new Set(["mine", "pdf"]) });
    expect(all.skills.map((s) => [s.name, s.level, s.disabled])).toEqual([
      ["Shared", "project", false],
      ["qwen-only", "project", false],
      ["mine", "user", true],
      ["office:pdf", "extension", true],
    ]);
    expect(invocable(all).map((s) => s.name)).toEqual(["Shared", "qwen-only"]);
    const untrusted = loadSkills({ workspace: ws.path, dataDir: data.path, trusted: false, extensions, disabled: new Set() });
    expect(untrusted.skills.map((s) => s.name)).toEqual(["mine", "shared", "office:pdf"]);
    expect(untrusted.skills[1]!.body).toBe("user body");
  });

  test("bounds and links: an oversized file and a bad one are problems; links out are not followed", async () => {
    await using ws = tempDir("k-cat-ws-");
    await using data = tempDir("k-cat-data-");
    await using outside = tempDir("k-cat-out-");
    const dir = join(ws.path, ".svc", "skills");
    put(dir, "big", skill("big") + "x".repeat(MAX_SKILL_FILE_BYTES));
    put(dir, "bad", "nothing");
    put(outside.path, "secret", skill("secret"));
    symlinkSync(join(outside.path, "secret"), join(dir, "linked-folder"));
    mkdirSync(join(dir, "linked-file"));
    symlinkSync(join(outside.path, "secret", "SKILL.md"), join(dir, "linked-file", "SKILL.md"));
    put(dir, "ok", skill("ok"));
    const catalog = loadSkills({ workspace: ws.path, dataDir: data.path, trusted: true, extensions: [], disabled: new Set() });
    expect(catalog.skills.map((s) => s.name)).toEqual(["ok"]);
    expect(catalog.problems.map((p) => p.folder).sort()).toEqual(["bad", "big"]);
  });
});
