/**
 * Hooks of the built-in agent, end to end through the daemon against the mock model: a blocking
 * pre-tool hook stops a write and the model reads why; a hook that never ends is killed at its
 * limit with what it started; an untrusted workspace's hooks do not run while the host's do; a
 * hook's huge output is bounded; the hook routes list hooks without their commands, and a session
 * hook added through the API runs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest, type JsonReply } from "../helpers/json-request.ts";
import { expectPidsGone, pidGone } from "../helpers/pids.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Strict routes (adding a session hook) need a configured token; every request carries it. */
const TOKEN = "h-hooks-test-token-0123456789";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

type HookGroups = Record<string, { matcher?: string; hooks: { type: "command"; command: string; timeout?: number; name?: string }[] }[]>;

interface Setup extends AsyncDisposable {
  readonly d: TestDaemon;
  readonly model: MockModel;
  readonly workspace: string;
  readonly home: string;
  readonly sessionId: string;
  readonly events: SseClient;
  /** Sends a prompt and waits for its turn to end; returns its end frame. */
  turn(text: string): Promise<{ event: string; data: Record<string, unknown> }>;
  /** A JSON request to the daemon with the token. */
  req(method: string, path: string, body?: unknown): Promise<JsonReply>;
}

/** A daemon in yolo mode (no permission asks) with `host` hooks in the data dir's settings and `project` hooks in the workspace's. */
async function setup(options: { host?: HookGroups; project?: HookGroups; trusted?: boolean }): Promise<Setup> {
  const model = startMockModel();
  const ws = tempDir("svc-hooks-ws-");
  const home = tempDir("svc-hooks-home-");
  const trusted = options.trusted ?? true;
  // No automatic title: its model request would come after the turn's and hide the tool results read here.
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, ...(options.host ? { hooks: options.host } : {}) }));
  if (options.project) {
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify({ hooks: options.project }));
  }
  const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model", SVC_SERVER_TOKEN: TOKEN };
  const d = await startDaemon(trusted ? ["--approval-mode", "yolo", "--trust-workspace"] : [], { workspace: ws.path, env });
  const req = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);
  const created = await req("POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  const events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0", ...AUTH } });
  return {
    req,
    d,
    model,
    workspace: ws.path,
    home: home.path,
    sessionId,
    events,
    async turn(text) {
      const reply = await req("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
      if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      const promptId = reply.body.promptId;
      const ended = () => events.frames.find((f) => (f.event === "turn_complete" || f.event === "turn_error") && f.data.promptId === promptId);
      await until(() => ended() !== undefined, 30_000, "the turn to end");
      return ended()!;
    },
    async [Symbol.asyncDispose]() {
      events.close();
      try {
        await d.stop();
      } finally {
        await d[Symbol.asyncDispose]();
        await model[Symbol.asyncDispose]();
        await ws[Symbol.asyncDispose]();
        await home[Symbol.asyncDispose]();
      }
    },
  };
}

const updates = (s: Setup) => s.events.frames.filter((f) => f.event === "session_update").map((f) => f.data.update);
/** The text of the tool results the model was sent in its last request. */
function lastToolResults(model: MockModel): string {
  const body = model.requests.at(-1) as { messages: { role: string; content: unknown }[] };
  return body.messages
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

describe("built-in agent hooks", () => {
  test("a blocking pre-tool hook stops a write; the call fails with the hook's reason, which the model reads", async () => {
    await using s = await setup({
      host: { PreToolUse: [{ matcher: "write_file|edit", hooks: [{ type: "command", command: "cat > \"$SVC_PROJECT_DIR/pre-input.json\"; echo 'writes are frozen today' >&2; exit 2" }] }] },
    });
    s.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "blocked.txt", content: "nope\n" } }] }, { kind: "text", text: "understood" });
    const end = await s.turn("write it");
    expect(end.event).toBe("turn_complete");
    expect(existsSync(join(s.workspace, "blocked.txt"))).toBe(false);
    const failed = updates(s).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
    expect(JSON.stringify(failed.content)).toContain("writes are frozen today");
    expect(lastToolResults(s.model)).toContain("blocked by a PreToolUse hook: writes are frozen today");
    // The hook read the event on stdin.
    const input = JSON.parse(readFileSync(join(s.workspace, "pre-input.json"), "utf8"));
    expect(input).toMatchObject({ session_id: expect.any(String), hook_event_name: "PreToolUse", tool_name: "write_file", tool_input: { file_path: "blocked.txt", content: "nope\n" } });
  });

  test("a JSON deny blocks too, and a matcher that names another tool lets the write through", async () => {
    await using s = await setup({
      host: {
        PreToolUse: [
          { matcher: "run_shell_command", hooks: [{ type: "command", command: "exit 2" }] },
          { matcher: "write_*", hooks: [{ type: "command", command: `printf '%s' '{"hookSpecificOutput":{"permissionDecision":"allow"}}'` }] },
        ],
      },
    });
    s.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "ok.txt", content: "fine\n" } }] }, { kind: "text", text: "done" });
    await s.turn("write it");
    expect(readFileSync(join(s.workspace, "ok.txt"), "utf8")).toBe("fine\n");
  });

  test("a pre-tool hook's updatedInput changes the call, and a post-tool hook's context reaches the model", async () => {
    const rewrite = JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { file_path: "rewritten.txt", content: "by the hook\n" } } });
    await using s = await setup({
      host: {
        PreToolUse: [{ matcher: "write_file", hooks: [{ type: "command", command: `printf '%s' '${rewrite}'` }] }],
        PostToolUse: [{ hooks: [{ type: "command", command: `printf '%s' '{"hookSpecificOutput":{"additionalContext":"lint passed"}}'` }] }],
      },
    });
    s.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "asked.txt", content: "by the model\n" } }] }, { kind: "text", text: "done" });
    await s.turn("write it");
    expect(existsSync(join(s.workspace, "asked.txt"))).toBe(false);
    expect(readFileSync(join(s.workspace, "rewritten.txt"), "utf8")).toBe("by the hook\n");
    expect(lastToolResults(s.model)).toContain("[PostToolUse hook context: lint passed]");
  });

  test("session start and end hooks: start runs once, at the first prompt; end runs when the session is closed, before the agent is stopped", async () => {
    await using s = await setup({
      host: {
        SessionStart: [{ hooks: [{ type: "command", command: "cat >> \"$SVC_PROJECT_DIR/start.log\"; echo >> \"$SVC_PROJECT_DIR/start.log\"" }] }],
        // Slow on purpose: closing the last session stops the agent (no --channel-idle-timeout-ms).
        SessionEnd: [{ hooks: [{ type: "command", command: "input=$(cat); sleep 1; printf '%s' \"$input\" > \"$SVC_PROJECT_DIR/end.json\"" }] }],
      },
    });
    await s.turn("one");
    await s.turn("two");
    const starts = readFileSync(join(s.workspace, "start.log"), "utf8").trim().split("\n");
    expect(starts).toHaveLength(1);
    expect(JSON.parse(starts[0]!)).toMatchObject({ hook_event_name: "SessionStart", source: "startup" });
    expect((await s.req("DELETE", `/session/${s.sessionId}`)).status).toBeLessThan(300);
    const end = join(s.workspace, "end.json");
    await until(() => existsSync(end) && readFileSync(end, "utf8").endsWith("}"), 10_000, "the SessionEnd hook to run");
    expect(JSON.parse(readFileSync(end, "utf8"))).toMatchObject({ hook_event_name: "SessionEnd", reason: "close" });
  });

  test("a hook that sleeps forever is killed at its limit, with the process it started, and the call goes on", async () => {
    await using s = await setup({
      host: { PreToolUse: [{ hooks: [{ type: "command", timeout: 1, command: "sleep 300 & echo $! > \"$SVC_PROJECT_DIR/grandchild.pid\"; echo $$ > \"$SVC_PROJECT_DIR/hook.pid\"; wait" }] }] },
    });
    s.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "after.txt", content: "went on\n" } }] }, { kind: "text", text: "done" });
    const started = performance.now();
    await s.turn("write it");
    const took = performance.now() - started;
    expect(readFileSync(join(s.workspace, "after.txt"), "utf8")).toBe("went on\n");
    expect(took).toBeLessThan(15_000);
    const hookPid = Number(readFileSync(join(s.workspace, "hook.pid"), "utf8"));
    const grandchild = Number(readFileSync(join(s.workspace, "grandchild.pid"), "utf8"));
    await expectPidsGone([hookPid, grandchild], 5000, "the hook and its child");
  });

  test("cancel kills a running hook with the turn", async () => {
    await using s = await setup({
      host: { UserPromptSubmit: [{ hooks: [{ type: "command", timeout: 600, command: "echo $$ > \"$SVC_PROJECT_DIR/hook.pid\"; exec sleep 300" }] }] },
    });
    const reply = await s.req("POST", `/session/${s.sessionId}/prompt`, { prompt: [{ type: "text", text: "hi" }] });
    const pidFile = join(s.workspace, "hook.pid");
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 15_000, "the hook to start");
    const hookPid = Number(readFileSync(pidFile, "utf8"));
    expect(pidGone(hookPid)).toBe(false);
    expect((await s.req("POST", `/session/${s.sessionId}/cancel`, {})).status).toBe(204);
    const end = await s.events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId, 15_000);
    expect(end.data.stopReason).toBe("cancelled");
    await expectPidsGone([hookPid], 5000, "the cancelled hook");
    expect(s.model.requests).toHaveLength(0);
  });

  test("an untrusted workspace's hooks do not run; the host's do, and the listing says which run (never their commands)", async () => {
    await using s = await setup({
      trusted: false,
      host: { UserPromptSubmit: [{ hooks: [{ type: "command", name: "host-mark", command: "touch \"$SVC_PROJECT_DIR/host-ran\"" }] }] },
      project: { UserPromptSubmit: [{ hooks: [{ type: "command", name: "project-mark", command: "touch \"$SVC_PROJECT_DIR/project-ran\"" }] }] },
    });
    const end = await s.turn("hello");
    expect(end.event).toBe("turn_complete");
    expect(existsSync(join(s.workspace, "host-ran"))).toBe(true);
    expect(existsSync(join(s.workspace, "project-ran"))).toBe(false);
    const listed = await s.req("GET", "/workspace/hooks");
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ v: 1, initialized: true, disabled: false });
    const hooks = listed.body.hooks as Record<string, unknown>[];
    expect(hooks.map((h) => [h.source, (h.config as { name: string }).name, h.enabled, h.disabledReason])).toEqual([
      ["user", "host-mark", true, undefined],
      ["project", "project-mark", false, "untrusted_workspace"],
    ]);
    expect(JSON.stringify(listed.body)).not.toContain("touch");
    // The trust report names them among the settings an untrusted folder does not get.
    const trust = await s.req("GET", "/workspace/trust");
    expect(trust.body.ignoredSettings).toContain("hooks");
    // The qualified form answers the same for the primary, selected by its path.
    const qualified = await s.req("GET", `/workspaces/${encodeURIComponent(s.workspace)}/hooks`);
    expect(qualified.status).toBe(200);
    expect(qualified.body.hooks).toEqual(listed.body.hooks);
  });

  test("trusting the folder while the agent runs lets its hooks run at the next prompt", async () => {
    await using s = await setup({ trusted: false, project: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch \"$SVC_PROJECT_DIR/project-ran\"" }] }] } });
    await s.turn("before");
    expect(existsSync(join(s.workspace, "project-ran"))).toBe(false);
    const granted = await s.req("POST", "/workspace/trust/request", { desiredState: "trusted" });
    expect(granted.status).toBe(202);
    await s.turn("after");
    expect(existsSync(join(s.workspace, "project-ran"))).toBe(true);
  });

  test("a hook's huge output is bounded: a 20 MB reason reaches the model cut", async () => {
    await using s = await setup({
      host: { PreToolUse: [{ hooks: [{ type: "command", command: "head -c 20000000 /dev/zero | tr '\\0' x >&2; exit 2" }] }] },
    });
    s.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "big.txt", content: "x" } }] }, { kind: "text", text: "ok" });
    await s.turn("write");
    expect(existsSync(join(s.workspace, "big.txt"))).toBe(false);
    const results = lastToolResults(s.model);
    expect(results).toContain("blocked by a PreToolUse hook: xxxx");
    expect(results.length).toBeLessThan(20_000);
  });

  test("session hooks: added through the API (strict), listed without their command, run at the next prompt, and removed", async () => {
    await using s = await setup({});
    const base = `/session/${s.sessionId}/hooks`;
    expect((await s.req("POST", base, { eventName: "UserPromptSubmit", command: "true", timeout: 0 })).status).toBe(400);
    expect((await s.req("POST", base, { eventName: "UserPromptSubmit", command: "" })).status).toBe(400);
    expect((await s.req("POST", base, { eventName: "NoSuchEvent", command: "true" })).status).toBe(400);
    const added = await s.req("POST", base, { eventName: "UserPromptSubmit", command: "echo 'the deploy window is closed'", name: "context" });
    expect(added.status).toBe(200);
    const hook = added.body.hook as Record<string, unknown>;
    const hookId = hook.hookId as string;
    expect(typeof hookId).toBe("string");
    expect(hook).toMatchObject({ kind: "hook", eventName: "UserPromptSubmit", source: "session", enabled: true, hookId: expect.any(String) });
    const listed = await s.req("GET", base);
    expect(listed.status).toBe(200);
    expect((listed.body.hooks as unknown[]).length).toBe(1);
    expect(JSON.stringify(listed.body)).not.toContain("deploy window");
    await s.turn("hello");
    expect(JSON.stringify(s.model.requests.at(-1))).toContain("the deploy window is closed");
    const removed = await s.req("DELETE", `${base}/${encodeURIComponent(hookId)}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.removed).toBe(true);
    expect(((await s.req("GET", base)).body.hooks as unknown[]).length).toBe(0);
    expect((await s.req("DELETE", `${base}/${encodeURIComponent(hookId)}`)).status).toBe(404);
  });

  test("a session holds a bounded number of hooks: one past the bound is 400 invalid_hook", async () => {
    await using s = await setup({});
    const base = `/session/${s.sessionId}/hooks`;
    for (let i = 0; i < 32; i++) expect((await s.req("POST", base, { eventName: "SessionEnd", command: `true ${i}` })).status).toBe(200);
    const refused = await s.req("POST", base, { eventName: "SessionEnd", command: "true" });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "invalid_hook" });
    expect(refused.body.error).toContain("at most 32 hooks");
  });

  test("adding a session hook needs a configured token (a hook runs commands)", async () => {
    await using d = await startDaemon([], { env: { PATH: process.env.PATH } });
    const created = await jsonRequest(d.url, "POST", "/session", {});
    const added = await jsonRequest(d.url, "POST", `/session/${created.body.sessionId}/hooks`, { eventName: "SessionEnd", command: "true" });
    expect(added.status).toBe(401);
  });
});
