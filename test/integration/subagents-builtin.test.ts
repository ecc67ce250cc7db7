/**
 * Subagents with the built-in agent and the mock model, through the daemon: definitions listed
 * (a broken one reported), the `task` tool running a subagent whose updates nest under the parent
 * call (`_meta.parentToolCallId`) and come back from `GET /session/:id/subagents/:ref`, with only
 * the tools its definition and the parent allow; a drafted definition; a definition created,
 * updated and deleted through the API seen by the next `task` call; an untrusted workspace's
 * definitions neither listed nor run.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "subagents-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
type Sent = { messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string } }> };
type Update = { sessionUpdate: string; toolCallId?: string; title?: string; status?: string; _meta?: { parentToolCallId?: string; subagentType?: string; toolName?: string } };

const LISTER = "---\nname: lister\ndescription: Lists folders\ntools: [list_directory, write_file]\ndisallowedTools: write_file\nmaxTurns: 3\n---\nYou are LISTER-PROMPT: list folders.\n";

async function setup(trusted: boolean) {
  const model = startMockModel();
  const home = tempDir("s-sub-home-");
  const ws = tempDir("s-sub-ws-");
  mkdirSync(join(ws.path, ".svc/agents"), { recursive: true });
  writeFileSync(join(ws.path, ".svc/agents/lister.md"), LISTER);
  writeFileSync(join(ws.path, ".svc/agents/broken.md"), "no front matter here");
  await Bun.write(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, model: { providers: [{ id: "mock", baseUrl: model.baseUrl, apiKeyEnv: "MOCK_KEY", models: ["mock-model"] }] } }));
  const d = await startDaemon(["--token", TOKEN, ...(trusted ? ["--trust-workspace"] : [])], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, MOCK_KEY: "test-key" } });
  const call = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);
  return {
    model,
    ws,
    d,
    call,
    async [Symbol.asyncDispose]() {
      await d[Symbol.asyncDispose]();
      await model[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

const sent = (model: { requests: unknown[] }, i: number) => model.requests[i] as Sent;
const toolNames = (req: Sent) => (req.tools ?? []).map((t) => t.function.name).sort();
const toolResults = (req: Sent) => JSON.stringify(req.messages.filter((m) => m.role === "tool").map((m) => m.content));

describe("subagents with the built-in agent", () => {
  test("a trusted workspace: definitions listed, a subagent runs with its tools only, nested under the task call, read back by ref", async () => {
    await using f = await setup(true);
    const { call, model, ws } = f;
    const listed = await call("GET", "/workspace/agents");
    expect(listed.status).toBe(200);
    expect(listed.body.agents.map((a: { name: string; level: string }) => `${a.name}:${a.level}`)).toEqual(["lister:project", "general-purpose:builtin"]);
    expect(listed.body.agents[0]).toMatchObject({ kind: "agent", hasTools: true, tools: ["list_directory", "write_file"], maxTurns: 3, isBuiltin: false });
    expect(listed.body.errors).toEqual([expect.objectContaining({ errorKind: "invalid_definition", hint: join(f.d.workspace, ".svc/agents/broken.md") })]);
    expect(await call("GET", "/workspace/agents/lister")).toMatchObject({ status: 200, body: { name: "lister", systemPrompt: "You are LISTER-PROMPT: list folders." } });
    expect(await call("GET", "/workspace/agents/nobody")).toMatchObject({ status: 404, body: { code: "agent_not_found" } });
    expect(await call("GET", "/workspace/agents/a.b")).toMatchObject({ status: 400, body: { code: "invalid_agent_type" } });
    const features = (await call("GET", "/capabilities")).body.features;
    for (const tag of ["workspace_agents", "workspace_agent_generate"]) expect(features).toContain(tag);

    const sessionId = (await call("POST", "/session", {})).body.sessionId as string;
    await using events = await openSse(`${f.d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
    const target = join(ws.path, "from-subagent.txt");
    model.enqueue(
      { kind: "tools", calls: [{ name: "task", args: { description: "list the root", prompt: "List the workspace root.", subagent_type: "lister" } }] },
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: target, content: "x" } }, { name: "list_directory", args: { path: "." } }] },
      { kind: "text", text: "SUBAGENT-REPORT: two entries" },
      { kind: "text", text: "parent done" },
    );
    const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "delegate" }] });
    expect(admitted.status).toBe(202);
    await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === admitted.body.promptId, 20_000);

    // The subagent's requests: its definition's prompt, its own conversation, and only list_directory.
    const child = sent(model, 1);
    expect(String(child.messages[0]!.content)).toContain("You are LISTER-PROMPT");
    expect(JSON.stringify(child.messages)).not.toContain("delegate");
    expect(toolNames(child)).toEqual(["list_directory"]);
    expect(toolResults(sent(model, 2))).toContain("unknown tool write_file");
    expect(existsSync(target)).toBe(false);
    expect(toolResults(sent(model, 3))).toContain("SUBAGENT-REPORT: two entries");

    // Session updates come as unnamed SSE events; their data carries the update.
    const updates = events.frames.flatMap((fr) => ((fr.data as { update?: Update } | null)?.update ? [(fr.data as { update: Update }).update] : []));
    const task = updates.find((u) => u.sessionUpdate === "tool_call" && u._meta?.parentToolCallId === undefined && u._meta?.toolName === "task")!;
    expect(task).toBeDefined();
    const nested = updates.filter((u) => u._meta?.parentToolCallId === task.toolCallId);
    expect(nested.filter((u) => u.sessionUpdate === "tool_call").length).toBe(2);
    expect(nested.every((u) => u._meta?.subagentType === "lister")).toBe(true);
    expect(nested.some((u) => u.sessionUpdate === "agent_message_chunk" && JSON.stringify(u).includes("SUBAGENT-REPORT"))).toBe(true);
    // The parent's own reply is not nested.
    expect(updates.some((u) => u.sessionUpdate === "agent_message_chunk" && u._meta?.parentToolCallId === undefined && JSON.stringify(u).includes("parent done"))).toBe(true);

    // The turn index and the export give the parent's reply without the subagent's words (review R16).
    const index = await call("GET", `/session/${sessionId}/turn-index`);
    expect(JSON.stringify(index.body)).toContain("parent done");
    expect(JSON.stringify(index.body)).not.toContain("SUBAGENT-REPORT");
    const exported = await fetch(`${f.d.url}/session/${sessionId}/export?format=md`, { headers: AUTH });
    const markdown = await exported.text();
    expect(markdown).toContain("parent done");
    expect(markdown).not.toContain("SUBAGENT-REPORT");

    // The subagent's calls count for the session; its task prompt is not a user prompt.
    const stats = await call("GET", `/session/${sessionId}/stats`);
    expect(stats.status).toBe(200);
    expect(JSON.stringify(stats.body)).toContain('"promptCount":1');
    expect(JSON.stringify(stats.body)).toContain('"list_directory"');

    const view = await call("GET", `/session/${sessionId}/subagents/${encodeURIComponent(task.toolCallId!)}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ taskId: task.toolCallId, status: "completed", truncated: false, title: expect.stringContaining("lister") });
    expect(view.body.sessionId).toBe(`subagent.${Buffer.from(sessionId).toString("base64url")}.${Buffer.from(task.toolCallId!).toString("base64url")}`);
    expect(view.body.events.length).toBe(nested.length);
    expect(view.body.events.every((e: { data: { update: Update } }) => e.data.update._meta?.parentToolCallId === task.toolCallId)).toBe(true);
    // Text that merely mentions the ref is not the subagent's.
    const mention = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `about ${task.toolCallId}` }] });
    await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === mention.body.promptId, 20_000);
    expect((await call("GET", `/session/${sessionId}/subagents/${encodeURIComponent(task.toolCallId!)}`)).body.events.length).toBe(nested.length);
    expect(await call("GET", `/session/${sessionId}/subagents/no-such-call`)).toMatchObject({ status: 404, body: { code: "session_not_found" } });

    // The parent lacks a tool (disabled in the workspace): the general-purpose subagent lacks it too, and never has task.
    expect((await call("POST", "/workspace/tools/run_shell_command/enable", { enabled: false })).status).toBe(200);
    model.enqueue({ kind: "tools", calls: [{ name: "task", args: { description: "anything", prompt: "Do it." } }] }, { kind: "text", text: "GP-DONE" }, { kind: "text", text: "ok" });
    const before = model.requests.length;
    const second = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "again" }] });
    await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === second.body.promptId, 20_000);
    const gp = toolNames(sent(model, before + 1));
    expect(gp).toContain("read_file");
    expect(gp).not.toContain("run_shell_command");
    expect(gp).not.toContain("task");
    expect(toolNames(sent(model, before))).toContain("task");

    // The parent's approval mode holds inside the subagent: in plan mode its write is refused.
    expect((await call("POST", `/session/${sessionId}/approval-mode`, { mode: "plan" })).status).toBe(200);
    const planned = join(ws.path, "planned.txt");
    model.enqueue(
      { kind: "tools", calls: [{ name: "task", args: { description: "write", prompt: "Write it." } }] },
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: planned, content: "x" } }] },
      { kind: "text", text: "could not" },
      { kind: "text", text: "ok" },
    );
    const third = model.requests.length;
    const planTurn = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "plan" }] });
    await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === planTurn.body.promptId, 20_000);
    expect(toolResults(sent(model, third + 2))).toContain("not available in plan mode");
    expect(existsSync(planned)).toBe(false);

    // A drafted definition comes back and is written nowhere.
    model.enqueue({ kind: "text", text: '```json\n{"name":"test-writer","description":"Use this agent when tests are needed.","systemPrompt":"You are a test writer."}\n```' });
    expect(await call("POST", "/workspace/agents/generate", { description: "writes tests" })).toEqual(
      expect.objectContaining({ status: 200, body: { name: "test-writer", description: "Use this agent when tests are needed.", systemPrompt: "You are a test writer." } }),
    );
    expect(readdirSync(join(ws.path, ".svc/agents")).sort()).toEqual(["broken.md", "lister.md"]);
    expect(await call("POST", "/workspace/agents/generate", { description: "x".repeat(4097) })).toMatchObject({ status: 400, body: { code: "invalid_description" } });
  }, 60_000);

  test("a definition created, updated and deleted through the API is what the next task call runs", async () => {
    await using f = await setup(true);
    const { call, model } = f;
    const sessionId = (await call("POST", "/session", {})).body.sessionId as string;
    await using events = await openSse(`${f.d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
    const delegate = async (text: string) => {
      const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
      await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === admitted.body.promptId, 20_000);
    };
    const task = { kind: "tools" as const, calls: [{ name: "task", args: { description: "review", prompt: "Review it.", subagent_type: "api-made" } }] };

    const created = await call("POST", "/workspace/agents", { scope: "workspace", name: "api-made", description: "Made through the API", systemPrompt: "You are API-MADE-V1.", tools: ["read_file"] });
    expect(created.status).toBe(201);
    await events.waitFor("agent_changed", (fr: { data: { change?: string } }) => fr.data.change === "created", 5_000);
    let before = model.requests.length;
    model.enqueue(task, { kind: "text", text: "V1 report" }, { kind: "text", text: "ok" });
    await delegate("first");
    expect(String(sent(model, before + 1).messages[0]!.content)).toContain("You are API-MADE-V1.");
    expect(toolNames(sent(model, before + 1))).toEqual(["read_file"]);

    expect(await call("POST", "/workspace/agents/api-made", { systemPrompt: "You are API-MADE-V2." })).toMatchObject({ status: 200, body: { changed: true } });
    await events.waitFor("agent_changed", (fr: { data: { change?: string } }) => fr.data.change === "updated", 5_000);
    before = model.requests.length;
    model.enqueue(task, { kind: "text", text: "V2 report" }, { kind: "text", text: "ok" });
    await delegate("second");
    expect(String(sent(model, before + 1).messages[0]!.content)).toContain("You are API-MADE-V2.");

    expect((await call("DELETE", "/workspace/agents/api-made")).status).toBe(204);
    expect((await events.waitFor("agent_changed", (fr: { data: { change?: string } }) => fr.data.change === "deleted", 5_000)).data).toEqual({ change: "deleted", name: "api-made", level: "project" });
    before = model.requests.length;
    model.enqueue(task, { kind: "text", text: "ok" });
    await delegate("third");
    expect(model.requests.length).toBe(before + 2);
    expect(toolResults(sent(model, before + 1))).toContain('no subagent named \\"api-made\\"');
  }, 60_000);

  test("a subagent is cancelled with its parent's turn", async () => {
    await using f = await setup(true);
    const { call, model } = f;
    const sessionId = (await call("POST", "/session", {})).body.sessionId as string;
    await using events = await openSse(`${f.d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
    model.enqueue({ kind: "tools", calls: [{ name: "task", args: { description: "slow", prompt: "Take your time." } }] }, { kind: "hang", text: "CHILD-STARTED" });
    const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "go" }] });
    expect(admitted.status).toBe(202);
    const chunk = await until(() => events.frames.find((fr) => JSON.stringify(fr.data).includes("CHILD-STARTED")), 20_000, "the subagent's first text");
    expect((chunk.data as { update: Update }).update._meta?.subagentType).toBe("general-purpose");
    expect((await call("POST", `/session/${sessionId}/cancel`, {})).status).toBe(204);
    const done = await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === admitted.body.promptId, 20_000);
    expect((done.data as { stopReason: string }).stopReason).toBe("cancelled");
    const task = events.frames.map((fr) => (fr.data as { update?: Update } | null)?.update).find((u) => u?.sessionUpdate === "tool_call" && u._meta?.toolName === "task")!;
    const view = await call("GET", `/session/${sessionId}/subagents/${encodeURIComponent(task.toolCallId!)}`);
    // Its tool call ends failed on the wire; the view reads the turn's end (review R16).
    expect(view.body.status).toBe("cancelled");
    // No model request after the cancel: the parent never got a result to answer.
    expect(model.requests.length).toBe(2);
  }, 60_000);

  test("an untrusted workspace: its definitions are not listed and a task naming one does not run", async () => {
    await using f = await setup(false);
    const { call, model } = f;
    const listed = await call("GET", "/workspace/agents");
    expect(listed.status).toBe(200);
    expect(listed.body.agents.map((a: { name: string }) => a.name)).toEqual(["general-purpose"]);
    expect(listed.body.errors).toEqual([expect.objectContaining({ errorKind: "untrusted_workspace" })]);
    expect(await call("GET", "/workspace/agents/lister")).toMatchObject({ status: 404 });
    expect(await call("POST", "/workspace/agents/generate", { description: "writes tests" })).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });

    const sessionId = (await call("POST", "/session", {})).body.sessionId as string;
    await using events = await openSse(`${f.d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
    model.enqueue({ kind: "tools", calls: [{ name: "task", args: { description: "list", prompt: "List.", subagent_type: "lister" } }] }, { kind: "text", text: "parent done" });
    const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "delegate" }] });
    await events.waitFor("turn_complete", (fr: { data: { promptId?: string } }) => fr.data.promptId === admitted.body.promptId, 20_000);
    expect(model.requests.length).toBe(2);
    expect(toolResults(sent(model, 1))).toContain('no subagent named \\"lister\\"');
  }, 60_000);
});
