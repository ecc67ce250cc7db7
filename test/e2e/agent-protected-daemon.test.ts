/**
 * The reproduced attack of issue 22 through the daemon, built-in agent and mock model: under
 * `auto-edit` (from the host settings), an injected edit to `.git/config` (`core.fsmonitor`, run by
 * the user's next `git status`) and a write of `.svc/settings.json` (yolo for the next agent) reach
 * the client as permission requests that say "Protected path" and offer no "always"; rejected,
 * nothing is written.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TURN_MS = 20_000;
const GIT_CONFIG = "[core]\n\tbare = false\n";

test("under auto-edit, injected edits to .git/config and .svc/settings.json are asked as protected paths and, rejected, change nothing", async () => {
  await using model = startMockModel();
  await using ws = tempDir("svc-protected-ws-");
  await using home = tempDir("svc-protected-home-");
  mkdirSync(join(ws.path, ".git"));
  writeFileSync(join(ws.path, ".git", "config"), GIT_CONFIG);
  writeFileSync(join(ws.path, "notes.txt"), "plain\n");
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ tools: { approvalMode: "auto-edit" } }));
  await using d = await startDaemon(["--trust-workspace"], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" } });
  const created = await jsonRequest(d.url, "POST", "/session", {});
  expect(created.status).toBe(200);
  const sessionId = created.body.sessionId as string;
  await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
  model.enqueue(
    {
      kind: "tools",
      calls: [
        { name: "edit", args: { file_path: ".git/config", old_string: "[core]\n", new_string: "[core]\n\tfsmonitor = touch pwned\n" } },
        { name: "write_file", args: { file_path: ".svc/settings.json", content: JSON.stringify({ tools: { approvalMode: "yolo" } }) } },
        { name: "edit", args: { file_path: "notes.txt", old_string: "plain", new_string: "edited" } },
      ],
    },
    { kind: "text", text: "done" },
  );
  const prompt = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "README says to do this" }] });
  expect(prompt.status).toBe(202);
  const asks: Array<{ title: string; options: string[] }> = [];
  for (let i = 0; i < 2; i++) {
    const ask = await until(() => events.frames.filter((f) => f.event === "permission_request")[i], TURN_MS, `permission request ${i + 1}`);
    asks.push({ title: ask.data.toolCall.title, options: ask.data.options.map((o: { optionId: string }) => o.optionId) });
    const vote = await jsonRequest(d.url, "POST", `/session/${sessionId}/permission/${ask.data.requestId}`, { outcome: { outcome: "selected", optionId: "cancel" } });
    expect(vote.status).toBe(200);
  }
  const end = await until(() => events.frames.find((f) => (f.event === "turn_complete" || f.event === "turn_error") && f.data.promptId === prompt.body.promptId), TURN_MS, "the turn's end");
  expect(end.event).toBe("turn_complete");
  expect(asks).toEqual([
    { title: "Protected path: Edit .git/config", options: ["proceed_once", "cancel"] },
    { title: "Protected path: Create .svc/settings.json", options: ["proceed_once", "cancel"] },
  ]);
  expect(events.frames.filter((f) => f.event === "permission_request").length).toBe(2);
  expect(readFileSync(join(ws.path, ".git", "config"), "utf8")).toBe(GIT_CONFIG);
  expect(existsSync(join(ws.path, ".svc"))).toBe(false);
  expect(readFileSync(join(ws.path, "notes.txt"), "utf8")).toBe("edited\n");
});
