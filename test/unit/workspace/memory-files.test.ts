/** The instruction files' bounds (per file and in all) and the write's section rule. */
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadMemory, MAX_FILE_BYTES, MAX_TOTAL_BYTES, projectDirs } from "../../../src/workspace/memory/memory-files.ts";
import { appended } from "../../../src/workspace/memory/memory-write.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

test("each file gives at most MAX_FILE_BYTES, all of them MAX_TOTAL_BYTES; a cut multi-byte character is dropped", async () => {
  await using home = tempDir("m-home-");
  await using ws = tempDir("m-ws-");
  // One byte, then 2-byte characters: the bound falls inside one.
  writeFileSync(join(home.path, "AGENTS.md"), "a" + "é".repeat(MAX_FILE_BYTES));
  for (const name of ["AGENTS.md", "QWEN.md", "CLAUDE.md", "GEMINI.md"]) writeFileSync(join(ws.path, name), "x".repeat(MAX_FILE_BYTES));
  const { files, errors } = await loadMemory({ workspace: ws.path, dataDir: home.path, trusted: true });
  expect(files[0]).toMatchObject({ scope: "global", bytes: 2 * MAX_FILE_BYTES + 1, truncated: true });
  expect(Buffer.byteLength(files[0]!.text)).toBe(MAX_FILE_BYTES - 1);
  expect(files[0]!.text).not.toContain("\uFFFD");
  const total = files.reduce((sum, f) => sum + Buffer.byteLength(f.text), 0);
  expect(total).toBe(MAX_TOTAL_BYTES);
  // The first three leave one byte of the budget: the fourth gives it, the fifth nothing.
  expect(files.map((f) => f.truncated)).toEqual([true, false, false, true]);
  expect(errors.map((e) => e.errorKind)).toEqual(["memory_budget_exhausted"]);
});

test("a link inside its root is read; the repository root is the nearest folder above with .git", async () => {
  await using repo = tempDir("m-repo-");
  mkdirSync(join(repo.path, ".git"));
  mkdirSync(join(repo.path, "a", "b"), { recursive: true });
  writeFileSync(join(repo.path, "docs.md"), "shared rules\n");
  symlinkSync(join(repo.path, "docs.md"), join(repo.path, "a", "b", "AGENTS.md"));
  expect(await projectDirs(join(repo.path, "a", "b"))).toEqual([repo.path, join(repo.path, "a"), join(repo.path, "a", "b")]);
  const { files } = await loadMemory({ workspace: join(repo.path, "a", "b"), dataDir: join(repo.path, "none"), trusted: true });
  expect(files.map((f) => [f.path, f.text])).toEqual([[join(repo.path, "a", "b", "AGENTS.md"), "shared rules\n"]]);
});

test("append: a new section at the end, or at the end of the existing one", () => {
  expect(appended("", "- a\n")).toBe("## Added Memories\n- a\n");
  expect(appended("intro", "- a")).toBe("intro\n\n## Added Memories\n- a\n");
  expect(appended("## Added Memories\n- a\n", "- b")).toBe("## Added Memories\n- a\n- b\n");
  expect(appended("## Added Memories\n- a\n\n# Next\n", "- b")).toBe("## Added Memories\n- a\n- b\n\n# Next\n");
});
