/**
 * The built-in agent as the daemon's default child (no SVC_CLI_ENTRY: the daemon runs its own entry
 * with `--acp`), end to end over HTTP + SSE against the mock model.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

interface Setup extends AsyncDisposable {
  readonly d: TestDaemon;
  readonly model: MockModel;
  readonly workspace: string;
  readonly sessionId: string;
  readonly events: SseClient;
  prompt(text: string): Promise<string>;
  vote(requestId: string, optionId: string): Promise<number>;
}

/** Pids of this process's children that run `--acp` (the daemon's agent children). */
function agentChildren(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("--acp");
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The daemon runs the agent in `approvalMode` (default `default`); a wider mode needs the workspace trusted, which the test says with --trust-workspace. */
async function setup(options: { modelEnv?: boolean; approvalMode?: "default" | "yolo"; files?: Record<string, string> } = {}): Promise<Setup> {
  const model = startMockModel();
  const ws = tempDir("svc-agent-e2e-");
  const mode = options.approvalMode ?? "default";
  for (const [path, content] of Object.entries(options.files ?? {})) writeFileSync(join(ws.path, path), content);
  const modelEnv = options.modelEnv === false ? {} : { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
  const d = await startDaemon(["--approval-mode", mode, ...(mode === "default" ? [] : ["--trust-workspace"])], { workspace: ws.path, env: { PATH: process.env.PATH, ...modelEnv } });
  const created = await jsonRequest(d.url, "POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  const events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
  return {
    d,
    model,
    workspace: ws.path,
    sessionId,
    events,
    async prompt(text) {
      const reply = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
      if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body.promptId as string;
    },
    vote: async (requestId, optionId) => (await jsonRequest(d.url, "POST", `/session/${sessionId}/permission/${requestId}`, { outcome: { outcome: "selected", optionId } })).status,
    async [Symbol.asyncDispose]() {
      const children = agentChildren();
      events.close();
      try {
        if (children.length === 0) throw new Error("no agent child found: the orphan check would prove nothing");
        await d.stop();
        await expectPidsGone(children);
      } finally {
        // Whatever the checks found, nothing this setup started outlives it.
        await d[Symbol.asyncDispose]();
        await model[Symbol.asyncDispose]();
        await ws[Symbol.asyncDispose]();
      }
    },
  };
}

describe("built-in agent through the daemon", () => {
  test("a turn reads a file, edits it after a permission vote, and runs a shell command after another", async () => {
    await using s = await setup({ files: { "notes.txt": "alpha\nbeta\n" } });
    s.model.enqueue(
      { kind: "tools", calls: [{ name: "read_file", args: { file_path: "notes.txt" } }] },
      { kind: "tools", calls: [{ name: "edit", args: { file_path: "notes.txt", old_string: "beta", new_string: "gamma" } }] },
      { kind: "tools", calls: [{ name: "run_shell_command", args: { command: "cat notes.txt > copy.txt" } }] },
      { kind: "text", text: "all done" },
    );
    const promptId = await s.prompt("edit and copy");
    const editAsk = await s.events.waitFor("permission_request", undefined, 15_000);
    expect(editAsk.data.toolCall.content[0]).toMatchObject({ type: "diff", oldText: "alpha\nbeta\n", newText: "alpha\ngamma\n" });
    expect(editAsk.data.options.map((o: { optionId: string }) => o.optionId)).toEqual(["proceed_always", "proceed_once", "cancel"]);
    expect(await s.vote(editAsk.data.requestId, "proceed_once")).toBe(200);
    const shellAsk = await s.events.waitFor("permission_request", undefined, 15_000);
    expect(shellAsk.data.toolCall.rawInput).toEqual({ command: "cat notes.txt > copy.txt" });
    expect(await s.vote(shellAsk.data.requestId, "proceed_once")).toBe(200);
    const done = await s.events.waitFor("turn_complete", (f) => f.data.promptId === promptId, 15_000);
    expect(done.data.stopReason).toBe("end_turn");
    expect(readFileSync(join(s.workspace, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
    expect(readFileSync(join(s.workspace, "copy.txt"), "utf8")).toBe("alpha\ngamma\n");
    const updates = s.events.frames.filter((f) => f.event === "session_update").map((f) => f.data.update);
    const announced = updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
    expect(announced).toHaveLength(3);
    expect(updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed").map((u) => u.toolCallId)).toEqual(announced);
    expect(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("")).toBe("all done");
  });

  test("no model configured: the session opens and a prompt ends at once with turn_error naming what to set", async () => {
    await using s = await setup({ modelEnv: false });
    const promptId = await s.prompt("hello");
    const error = await s.events.waitFor("turn_error", (f) => f.data.promptId === promptId, 15_000);
    expect(error.data.message).toContain("OPENAI_MODEL");
    expect(error.data.message).toContain("OPENAI_API_KEY");
    expect(error.data.errorKind).toBe("auth_env_error");
    expect(s.model.requests).toHaveLength(0);
  });

  test("a provider error ends the turn with turn_error carrying the provider's status", async () => {
    await using s = await setup();
    s.model.enqueue({ kind: "status", status: 401, message: "invalid api key" });
    const promptId = await s.prompt("hello");
    const error = await s.events.waitFor("turn_error", (f) => f.data.promptId === promptId, 15_000);
    expect(error.data.message).toContain("HTTP 401");
    expect(error.data.message).toContain("invalid api key");
    expect(error.data.errorKind).toBe("auth_env_error");
  });

  test("cancel during a long shell command ends the turn cancelled and leaves no process behind", async () => {
    await using s = await setup({ approvalMode: "yolo" });
    s.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sleep 300 & echo $! > pids; echo $$ >> pids; wait" } }] });
    const promptId = await s.prompt("run it");
    const pids = await until(() => {
      try {
        const found = readFileSync(join(s.workspace, "pids"), "utf8").trim().split("\n").map(Number);
        return found.length === 2 ? found : null;
      } catch {
        return null;
      }
    }, 15_000, "the command to start");
    expect((await s.d.fetch(`/session/${s.sessionId}/cancel`, { method: "POST" })).status).toBe(204);
    const done = await s.events.waitFor("turn_complete", (f) => f.data.promptId === promptId, 15_000);
    expect(done.data.stopReason).toBe("cancelled");
    await expectPidsGone(pids, 5000, "shell processes");
  });

  test("cancel during a model stream closes the stream", async () => {
    await using s = await setup();
    s.model.enqueue({ kind: "hang", text: "thinking" });
    const promptId = await s.prompt("hi");
    await until(() => s.model.hangingStreams() === 1, 15_000, "the model stream to open");
    await s.d.fetch(`/session/${s.sessionId}/cancel`, { method: "POST" });
    expect((await s.events.waitFor("turn_complete", (f) => f.data.promptId === promptId, 15_000)).data.stopReason).toBe("cancelled");
    await until(() => s.model.hangingStreams() === 0, 5000, "the model stream to close");
  });
});
