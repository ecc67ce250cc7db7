/**
 * A worktree session with the built-in agent, end to end over HTTP + SSE against the mock model:
 * its edit tools and shell commands work in the session's checkout (relative paths resolve there,
 * `..` cannot leave it), the workspace's own files stay as they were, and the session comes back
 * in its checkout after a restart.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { initRepo } from "../helpers/git-repo.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

async function turn(d: TestDaemon, sessionId: string, text: string): Promise<void> {
  await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
  const reply = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  expect(reply.status).toBe(202);
  const end = await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId, 20_000);
  expect(end.data.stopReason).toBe("end_turn");
}

describe("a worktree session with the built-in agent", () => {
  test("edits and shell commands land in the checkout, never in the workspace or above the checkout", async () => {
    await using model = startMockModel();
    await using home = tempDir("w-home-");
    await using ws = tempDir("w-ws-");
    // A user hook that records where it ran and what it was told (review R15: it ran in the workspace).
    const hook = { type: "command", command: "pwd > hook-pwd.txt; cat > hook-input.json" };
    writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, hooks: { PostToolUse: [{ matcher: "edit", hooks: [hook] }] } }));
    initRepo(ws.path, { "a.txt": "alpha\n" });
    const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
    const args = ["--approval-mode", "yolo", "--trust-workspace"];
    let sessionId: string;
    let path: string;
    {
      await using d = await startDaemon(args, { workspace: ws.path, env });
      const created = await jsonRequest(d.url, "POST", "/session", { worktree: { slug: "builtin" } });
      expect(created.status).toBe(200);
      sessionId = created.body.sessionId;
      path = created.body.worktree.path;
      model.enqueue(
        { kind: "tools", calls: [{ name: "edit", args: { file_path: "a.txt", old_string: "alpha", new_string: "ALPHA" } }] },
        { kind: "tools", calls: [{ name: "run_shell_command", args: { command: "printf 'shell\\n' > s.txt" } }] },
        { kind: "tools", calls: [{ name: "write_file", args: { file_path: "../../../escape.txt", content: "out\n" } }] },
        { kind: "text", text: "done" },
      );
      await turn(d, sessionId, "change things");
      expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("ALPHA\n");
      expect(readFileSync(join(path, "s.txt"), "utf8")).toBe("shell\n");
      expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("alpha\n");
      expect(existsSync(join(ws.path, "s.txt"))).toBe(false);
      expect(readFileSync(join(path, "hook-pwd.txt"), "utf8").trim()).toBe(path);
      expect(JSON.parse(readFileSync(join(path, "hook-input.json"), "utf8"))).toMatchObject({ cwd: path, hook_event_name: "PostToolUse" });
      expect(existsSync(join(ws.path, "hook-pwd.txt"))).toBe(false);
      expect(existsSync(join(ws.path, "escape.txt"))).toBe(false);
      expect(existsSync(join(ws.path, ".qwen", "escape.txt"))).toBe(false);
    }
    await using d = await startDaemon(args, { workspace: ws.path, env });
    const loaded = await jsonRequest(d.url, "POST", `/session/${sessionId}/load`, {});
    expect(loaded.status).toBe(200);
    expect(loaded.body.restoredBy).toBe("session/load");
    expect(loaded.body.currentCwd).toBe(path);
    model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "after.txt", content: "later\n" } }] }, { kind: "text", text: "ok" });
    await turn(d, sessionId, "after the restart");
    expect(readFileSync(join(path, "after.txt"), "utf8")).toBe("later\n");
    expect(existsSync(join(ws.path, "after.txt"))).toBe(false);
  });
});
