/**
 * `GET|POST /workspace/memory` (and the `/workspaces/:workspace/` form) on an idle daemon: the
 * instruction files of the user (data dir) and the project (repository root down to the
 * workspace), in prompt order with sizes; links out of their root skipped; an untrusted
 * workspace's files not listed; the strict write (append under the section, replace, atomic, never
 * through a link, bounded).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

const TOKEN = "memory-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

describe("a trusted workspace inside a repository", () => {
  let repo: TempDir;
  let home: TempDir;
  let outside: TempDir;
  let d: FakeAgentDaemon;
  let ws: string;
  beforeAll(async () => {
    repo = tempDir("m-repo-");
    home = tempDir("m-home-");
    outside = tempDir("m-out-");
    mkdirSync(join(repo.path, ".git"));
    ws = join(repo.path, "pkg", "app");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(repo.path, "AGENTS.md"), "root rules\n");
    writeFileSync(join(repo.path, "pkg", "CLAUDE.md"), "pkg rules\n");
    writeFileSync(join(ws, "QWEN.md"), "app qwen\n");
    writeFileSync(join(ws, "AGENTS.md"), "app agents\n");
    writeFileSync(join(home.path, "AGENTS.md"), "user rules\n");
    writeFileSync(join(outside.path, "secret.md"), "not yours\n");
    symlinkSync(join(outside.path, "secret.md"), join(ws, "GEMINI.md"));
    d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: ws, env: { SVC_HOME: home.path } });
  });
  afterAll(async () => {
    expect(await d.agentPids()).toEqual([]);
    await d[Symbol.asyncDispose]();
    for (const dir of [repo, home, outside]) await dir[Symbol.asyncDispose]();
  });

  test("lists the user's file, then the project's from the repository root down, in filename order; a link out is reported, not listed", async () => {
    const reply = await d.json("GET", "/workspace/memory", undefined, AUTH);
    expect(reply.status).toBe(200);
    const real = d.workspace;
    const top = join(real, "..", "..");
    expect(reply.body.files).toEqual([
      { kind: "memory_file", path: join(home.path, "AGENTS.md"), scope: "global", bytes: 11 },
      { kind: "memory_file", path: join(top, "AGENTS.md"), scope: "workspace", bytes: 11 },
      { kind: "memory_file", path: join(top, "pkg", "CLAUDE.md"), scope: "workspace", bytes: 10 },
      { kind: "memory_file", path: join(real, "AGENTS.md"), scope: "workspace", bytes: 11 },
      { kind: "memory_file", path: join(real, "QWEN.md"), scope: "workspace", bytes: 9 },
    ]);
    expect(reply.body).toMatchObject({ v: 1, workspaceCwd: real, initialized: true, totalBytes: 52, fileCount: 5, ruleCount: 0 });
    expect(reply.body.errors).toEqual([expect.objectContaining({ kind: "memory_file", status: "error", errorKind: "symlink_escape", hint: join(real, "GEMINI.md") })]);
    const qualified = await d.json("GET", `/workspaces/${encodeURIComponent(real)}/memory`, undefined, AUTH);
    expect(qualified.body).toEqual(reply.body);
    expect((await d.json("GET", "/capabilities", undefined, AUTH)).body.features).toContain("workspace_memory");
  });

  test("the write is strict: 401 without the token", async () => {
    expect((await d.json("POST", "/workspace/memory", { scope: "workspace", content: "x" })).status).toBe(401);
  });

  test("append adds under the Added Memories section; replace writes the whole file; whitespace changes nothing", async () => {
    const file = join(d.workspace, "AGENTS.md");
    const first = await d.json("POST", "/workspace/memory", { scope: "workspace", content: "- use tabs\n" }, AUTH);
    expect(first).toMatchObject({ status: 200, body: { ok: true, filePath: file, mode: "append", changed: true } });
    expect(readFileSync(file, "utf8")).toBe("app agents\n\n## Added Memories\n- use tabs\n");
    expect(first.body.bytesWritten).toBe(Buffer.byteLength(readFileSync(file)));
    writeFileSync(file, "top\n\n## Added Memories\n- a\n\n## Later\nz\n");
    await d.json("POST", "/workspace/memory", { scope: "workspace", mode: "append", content: "- b" }, AUTH);
    expect(readFileSync(file, "utf8")).toBe("top\n\n## Added Memories\n- a\n- b\n\n## Later\nz\n");
    expect(await d.json("POST", "/workspace/memory", { scope: "workspace", content: " \n " }, AUTH)).toMatchObject({ status: 200, body: { changed: false, bytesWritten: 0 } });
    expect(await d.json("POST", "/workspace/memory", { scope: "global", mode: "replace", content: "only this" }, AUTH)).toMatchObject({ status: 200, body: { filePath: join(home.path, "AGENTS.md"), bytesWritten: 9, changed: true } });
    expect(readFileSync(join(home.path, "AGENTS.md"), "utf8")).toBe("only this");
    // Nothing is left beside the files (the temp file was renamed over them).
    expect(readdirSync(d.workspace).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  test("bad bodies are 400; content over 1 MiB is content_too_large; a link at the name is 409 and left alone", async () => {
    expect((await d.json("POST", "/workspace/memory", { scope: "elsewhere", content: "x" }, AUTH)).status).toBe(400);
    expect((await d.json("POST", "/workspace/memory", { scope: "workspace" }, AUTH)).status).toBe(400);
    expect((await d.json("POST", "/workspace/memory", { scope: "workspace", mode: "prepend", content: "x" }, AUTH)).status).toBe(400);
    expect(await d.json("POST", "/workspace/memory", { scope: "workspace", content: "x".repeat(1024 * 1024 + 1) }, AUTH)).toMatchObject({ status: 400, body: { code: "content_too_large" } });
    symlinkSync(join(outside.path, "secret.md"), join(home.path, "AGENTS.md.link"));
    const linkHome = tempDir("m-linkhome-");
    symlinkSync(join(outside.path, "secret.md"), join(linkHome.path, "AGENTS.md"));
    await using other = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: linkHome.path, env: { SVC_HOME: home.path } });
    const reply = await other.json("POST", "/workspace/memory", { scope: "workspace", mode: "replace", content: "overwrite" }, AUTH);
    expect(reply).toMatchObject({ status: 409, body: { code: "memory_file_is_link" } });
    expect(readFileSync(join(outside.path, "secret.md"), "utf8")).toBe("not yours\n");
    await linkHome[Symbol.asyncDispose]();
  });
});

test("an untrusted workspace: the user's files only, an untrusted_workspace cell, and no write to the project's file", async () => {
  await using home = tempDir("m-home-");
  await using ws = tempDir("m-ws-");
  writeFileSync(join(ws.path, "AGENTS.md"), "project\n");
  writeFileSync(join(home.path, "GEMINI.md"), "mine\n");
  await using d = await fakeAgentDaemon(["--token", TOKEN], { workspace: ws.path, env: { SVC_HOME: home.path } });
  const reply = await d.json("GET", "/workspace/memory", undefined, AUTH);
  expect(reply.body.files).toEqual([{ kind: "memory_file", path: join(home.path, "GEMINI.md"), scope: "global", bytes: 5 }]);
  expect(reply.body.errors).toEqual([expect.objectContaining({ status: "disabled", errorKind: "untrusted_workspace" })]);
  expect(await d.json("POST", "/workspace/memory", { scope: "workspace", content: "x" }, AUTH)).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
  expect(readFileSync(join(ws.path, "AGENTS.md"), "utf8")).toBe("project\n");
});
