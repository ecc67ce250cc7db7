import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderDefinition } from "../../../src/workspace/agents/agent-draft.ts";
import { listAgents, MAX_AGENT_FILE_BYTES, MAX_AGENT_FILES, parseDefinition } from "../../../src/workspace/agents/index.ts";

const file = (front: string, body = "You review code.") => `---\n${front}\n---\n${body}\n`;

describe("parseDefinition", () => {
  test("reads the reference's fields: scalars, quoted values, inline, comma and block lists", () => {
    const d = parseDefinition(file('name: code-reviewer\ndescription: "Use this: after edits"\ntools: [read_file, "grep_search"]\ndisallowedTools: run_shell_command, write_file\nmodel: m1\ncolor: blue\nmaxTurns: 7'), "project", "/x.md");
    expect(d).toEqual({ name: "code-reviewer", description: "Use this: after edits", systemPrompt: "You review code.", level: "project", tools: ["read_file", "grep_search"], disallowedTools: ["run_shell_command", "write_file"], model: "m1", color: "blue", maxTurns: 7, filePath: "/x.md" });
    const block = parseDefinition(file("name: lister\ndescription: d\ntools:\n  - list_directory\n  - 'glob'"), "user");
    expect(block.tools).toEqual(["list_directory", "glob"]);
    expect(parseDefinition("\uFEFF---\r\nname: ab\r\ndescription: d\r\n---\r\nbody\r\n", "user").systemPrompt).toBe("body");
  });

  test("block scalars (what Qwen Code writes for a multi-line description) read as a YAML parser reads them", () => {
    const blocks = [
      "description: |-\n  Reviews code.\n  Use after edits.",
      "description: |\n  Reviews code.\n\n    Indented line.\n  Last.\n",
      "description: |+\n  kept\n\n",
      "description: >-\n  folded\n  into one\n\n  next paragraph",
      "description: >\n  folded\n   more indented\n  back",
      "description: |2-\n    two spaces kept\n  # not a comment",
      "description: >- # a comment\n  a\n  b",
      "description: >\n  a\n\n\n  b\n    c\n\n  d",
      "description: |\n\n  after a blank line\n  x",
    ];
    for (const block of blocks) {
      const front = `name: ab\n${block}\nmodel: m`;
      const read = parseDefinition(file(front), "user");
      expect(read.description).toBe((Bun.YAML.parse(front) as { description: string }).description);
      expect(read.model).toBe("m");
    }
    // A block that ends the front matter.
    expect(parseDefinition(file("name: ab\ndescription: >-\n  one\n  two"), "user").description).toBe("one two");
    const other = parseDefinition(file("name: ab\ndescription: d\nnotes: |-\n  x\n  y\nmodel: m"), "user");
    expect(other.otherFrontMatter).toEqual(["notes: |-", "  x", "  y"]);
  });

  test("no tools key means no allow-list; an unknown color is dropped", () => {
    const d = parseDefinition(file("name: ab\ndescription: d\ncolor: mauve"), "user");
    expect(d.tools).toBeUndefined();
    expect(d.color).toBeUndefined();
  });

  test.each([
    ["no front matter", "just text", /front matter/],
    ["missing name", file("description: d"), /name/],
    ["bad name", file("name: ../etc\ndescription: d"), /name/],
    ["one-letter name", file("name: a\ndescription: d"), /name/],
    ["missing description", file("name: ab"), /description/],
    ["empty prompt", file("name: ab\ndescription: d", ""), /system prompt/],
    ["duplicate key", file("name: ab\nname: cd\ndescription: d"), /twice/],
    ["maxTurns out of range", file("name: ab\ndescription: d\nmaxTurns: 500"), /maxTurns/],
    ["a list where a value goes", file("name: [ab]\ndescription: d"), /single value/],
    ["too many tools", file(`name: ab\ndescription: d\ntools: ${Array.from({ length: 65 }, (_, i) => `t${i}`).join(", ")}`), /more than/],
    ["a line that is not a field", file("name: ab\ndescription: d\n{oops"), /not understood/],
  ])("refuses %s", (_label, text, message) => {
    expect(() => parseDefinition(text, "user")).toThrow(message);
  });
});

describe("listAgents", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const setup = () => {
    const root = mkdtempSync(join(tmpdir(), "s-agents-"));
    dirs.push(root);
    const workspace = join(root, "ws");
    const dataDir = join(root, "data");
    for (const d of [join(workspace, ".svc/agents"), join(workspace, ".qwen/agents"), join(dataDir, "agents")]) mkdirSync(d, { recursive: true });
    return { root, workspace, dataDir };
  };

  test("project over user over built-in; .svc over .qwen; broken files are reported, not fatal", async () => {
    const { workspace, dataDir } = setup();
    writeFileSync(join(workspace, ".svc/agents/a.md"), file("name: shared\ndescription: from svc"));
    writeFileSync(join(workspace, ".qwen/agents/a.md"), file("name: shared\ndescription: from qwen"));
    writeFileSync(join(workspace, ".qwen/agents/q.md"), file("name: qwen-only\ndescription: q"));
    writeFileSync(join(dataDir, "agents/u.md"), file("name: shared\ndescription: from user"));
    writeFileSync(join(dataDir, "agents/mine.md"), file("name: mine\ndescription: u"));
    writeFileSync(join(dataDir, "agents/broken.md"), "no front matter");
    writeFileSync(join(dataDir, "agents/huge.md"), file("name: huge\ndescription: d", "x".repeat(MAX_AGENT_FILE_BYTES)));
    writeFileSync(join(dataDir, "agents/notes.txt"), "ignored");
    symlinkSync(join(dataDir, "agents/mine.md"), join(dataDir, "agents/link.md"));
    const { agents, errors } = await listAgents({ workspace, dataDir, trusted: true });
    expect(agents.map((a) => [a.name, a.level, a.description])).toEqual([
      ["shared", "project", "from svc"],
      ["qwen-only", "project", "q"],
      ["mine", "user", "u"],
      ["general-purpose", "builtin", expect.any(String)],
    ]);
    expect(errors.map((e) => e.filePath.split("/").pop()).sort()).toEqual(["broken.md", "huge.md", "link.md"]);
  });

  test("an untrusted workspace's definitions are not read", async () => {
    const { workspace, dataDir } = setup();
    writeFileSync(join(workspace, ".svc/agents/a.md"), file("name: proj\ndescription: p"));
    writeFileSync(join(dataDir, "agents/u.md"), file("name: mine\ndescription: u"));
    const listing = await listAgents({ workspace, dataDir, trusted: false });
    expect(listing.agents.map((a) => a.name)).toEqual(["mine", "general-purpose"]);
    expect(listing.projectSkipped).toBe(true);
  });

  test("a project folder reached through a link (`.qwen` linked elsewhere) is skipped and reported; no file content is echoed (review R16)", async () => {
    const { root, workspace, dataDir } = setup();
    const elsewhere = join(root, "elsewhere");
    mkdirSync(join(elsewhere, "agents"), { recursive: true });
    writeFileSync(join(elsewhere, "agents/private.md"), file("name: private\ndescription: outside"));
    writeFileSync(join(elsewhere, "agents/keys.md"), "---\napi_key = sk-live-secret\n---\nbody");
    rmSync(join(workspace, ".qwen"), { recursive: true });
    symlinkSync(elsewhere, join(workspace, ".qwen"));
    writeFileSync(join(workspace, ".svc/agents/k.md"), "---\napi_key = sk-live-secret\n---\nbody");
    const { agents, errors } = await listAgents({ workspace, dataDir, trusted: true });
    expect(agents.map((a) => a.name)).not.toContain("private");
    expect(errors.find((e) => e.filePath === join(workspace, ".qwen/agents"))?.error).toMatch(/symbolic link/);
    expect(JSON.stringify(errors)).not.toContain("sk-live");
  });

  test("at most MAX_AGENT_FILES files a folder are read, and the cut is reported", async () => {
    const { workspace, dataDir } = setup();
    for (let i = 0; i < MAX_AGENT_FILES + 3; i++) writeFileSync(join(dataDir, `agents/a${String(i).padStart(3, "0")}.md`), file(`name: a${i}x\ndescription: d`));
    const { agents, errors } = await listAgents({ workspace, dataDir, trusted: true });
    expect(agents.length).toBe(MAX_AGENT_FILES + 1);
    expect(errors[0]!.error).toMatch(/more than/);
  });
});

describe("renderDefinition", () => {
  const tricky = ['say "hi"', "it's", "a\\nb", "line\nname: evil\n---\nx", "\u2028\u2029\u0085\u007f\ufeff\t", "# hash", "[a, b]", "- item", "😀 𝐀", "ends with \\"];

  test("any text reads back the same, to this reader and to a YAML parser (Qwen Code reads .qwen/agents/ with one)", () => {
    for (const text of tricky) {
      const fields = { description: text, systemPrompt: "You review.", tools: [text.trim() || "t"], model: text.trim() || "m", maxTurns: 2 };
      const { text: file, definition } = renderDefinition("ab", fields, "user", "/x/ab.md");
      expect(definition).toMatchObject({ name: "ab", ...fields });
      const front = Bun.YAML.parse(file.split("\n---\n")[0]!.slice(4)) as Record<string, unknown>;
      expect(front).toEqual({ name: "ab", description: text, tools: fields.tools, model: fields.model, maxTurns: 2 });
    }
  });

  test("front matter lines it does not read are written back as they were", () => {
    const read = parseDefinition(file("name: ab\napprovalMode: yolo\ndescription: d\nhooks:\n  - x\n# note"), "user");
    expect(read.otherFrontMatter).toEqual(["approvalMode: yolo", "hooks:", "  - x"]);
    const { text } = renderDefinition("ab", { description: "d2", systemPrompt: "p" }, "user", "/x/ab.md", read.otherFrontMatter);
    expect(text).toContain("\napprovalMode: yolo\nhooks:\n  - x\n---\n");
  });
});
