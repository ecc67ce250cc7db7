/** The built-in agent's ACP surface, driven by a real SDK client over stdio, against the mock model. */
import { describe, expect, test } from "bun:test";
import { COALESCE_INTERVAL_MS } from "../../src/builtin-agent/chunk-coalescer.ts";
import { rpcError, startAgent } from "./agent-client.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { git, initRepo } from "../helpers/git-repo.ts";

describe("svc --acp: handshake and sessions", () => {
  test("initialize names the agent svc; session/new reports the five approval modes (auto in a trusted workspace) and the configured model", async () => {
    await using a = await startAgent({ trusted: true });
    const init = await a.initialize();
    expect(init.agentInfo?.name).toBe("svc");
    const session = await a.newSession();
    expect(session.modes?.currentModeId).toBe("auto");
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["plan", "default", "auto-edit", "auto", "yolo"]);
    expect(session.models?.currentModelId).toBe("openai/mock-model");
    expect(session.models?.availableModels.map((m) => m.modelId)).toEqual(["openai/mock-model"]);
    await a.waitForUpdate(session.sessionId, (u) => u.sessionUpdate === "available_commands_update", "available commands");
  });

  test("many sessions share one process, each with its own conversation", async () => {
    await using a = await startAgent();
    const one = await a.newSession();
    const two = await a.newSession();
    expect(one.sessionId).not.toBe(two.sessionId);
    await a.turn(one.sessionId, "first session");
    await a.turn(two.sessionId, "second session");
    expect(a.agentText(one.sessionId)).toBe("mock reply: first session");
    expect(a.agentText(two.sessionId)).toBe("mock reply: second session");
    // Each request carries only its own session's history.
    const last = a.model.requests.at(-1) as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(last.messages)).not.toContain("first session");
  });

  test("turns of two sessions run at the same time without mixing their streams", async () => {
    await using a = await startAgent();
    const one = await a.newSession();
    const two = await a.newSession();
    a.model.enqueue({ kind: "text", text: "one one one one", chunkChars: 4, chunkDelayMs: 20 }, { kind: "text", text: "two two two two", chunkChars: 4, chunkDelayMs: 20 });
    const [r1, r2] = await Promise.all([a.turn(one.sessionId, "first"), a.turn(two.sessionId, "second")]);
    expect([r1.response.stopReason, r2.response.stopReason]).toEqual(["end_turn", "end_turn"]);
    expect(new Set([a.agentText(one.sessionId), a.agentText(two.sessionId)])).toEqual(new Set(["one one one one", "two two two two"]));
  });

  test("a text turn streams agent_message_chunks and reports usage on the last chunk and the response", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    // Pieces further apart than the agent gathers deltas for (chunk-coalescer.ts) each reach the client as they come.
    a.model.enqueue({ kind: "text", text: "hello there, this is streamed in pieces", chunkChars: 5, chunkDelayMs: 3 * COALESCE_INTERVAL_MS });
    const { response, updates } = await a.turn(sessionId, "hi");
    expect(response.stopReason).toBe("end_turn");
    const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
    expect(chunks.length).toBeGreaterThan(5);
    expect(a.agentText(sessionId)).toBe("hello there, this is streamed in pieces");
    expect(chunks.at(-1)?._meta?.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(response._meta?.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
  });

  test("the conversation is kept: the second prompt's request carries the first exchange", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "remember the word kumquat");
    await a.turn(sessionId, "what was the word?");
    const last = a.model.requests.at(-1) as { messages: Array<{ role: string }> };
    expect(last.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(JSON.stringify(last.messages)).toContain("kumquat");
  });

  test("set_mode switches the approval mode and announces it; an unknown mode or session is refused", async () => {
    await using a = await startAgent({ trusted: true });
    const { sessionId } = await a.newSession();
    await a.agent.request("session/set_mode", { sessionId, modeId: "yolo" });
    await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "yolo", "the mode update");
    expect((await rpcError(a.agent.request("session/set_mode", { sessionId, modeId: "reckless" }))).code).toBe(-32602);
    expect((await rpcError(a.agent.request("session/set_mode", { sessionId: "nope", modeId: "plan" }))).code).toBe(-32002);
    expect((await rpcError(a.prompt("nope", "hi"))).code).toBe(-32002);
  });

  test("set_model accepts only a configured model", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    await a.agent.request("session/set_model", { sessionId, modelId: "openai/mock-model" });
    expect((await rpcError(a.agent.request("session/set_model", { sessionId, modelId: "openai/other" }))).code).toBe(-32602);
  });

  test("a session for another directory is refused; one of the workspace's session worktrees is its own root", async () => {
    await using a = await startAgent();
    const worktrees = join(a.workspace, ".qwen", "worktrees");
    mkdirSync(join(worktrees, "fake"), { recursive: true });
    mkdirSync(join(a.workspace, "sub"));
    for (const cwd of ["/", join(a.workspace, "sub"), join(worktrees, "fake"), join(worktrees, "fake", ".."), `${a.workspace}/.qwen/worktrees/../../sub`])
      expect([cwd, (await rpcError(a.agent.request("session/new", { cwd, mcpServers: [] }))).code]).toEqual([cwd, -32602]);
    initRepo(a.workspace, { "a.txt": "x" });
    git(a.workspace, "worktree", "add", "-q", "-b", "worktree-real", join(worktrees, "real"));
    // A checkout anywhere else in the workspace is no session root.
    git(a.workspace, "worktree", "add", "-q", "-b", "elsewhere", join(a.workspace, "sub", "elsewhere"));
    expect((await rpcError(a.agent.request("session/new", { cwd: join(a.workspace, "sub", "elsewhere"), mcpServers: [] }))).code).toBe(-32602);
    const opened = await a.agent.request<{ sessionId: string }>("session/new", { cwd: join(worktrees, "real"), mcpServers: [] });
    expect(opened.sessionId).toBeString();
  });
});

describe("svc --acp: no model configured", () => {
  test("sessions still open; a prompt fails at once naming what to set, with errorKind auth_env_error", async () => {
    await using a = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: undefined } });
    const session = await a.newSession();
    expect(session.models).toBeUndefined();
    const error = await rpcError(a.prompt(session.sessionId, "hello"));
    const data = error.data as { details: string; errorKind: string };
    expect(data.errorKind).toBe("auth_env_error");
    expect(data.details).toContain("OPENAI_MODEL");
    expect(data.details).toContain("OPENAI_API_KEY");
    expect(data.details).toContain("OPENAI_BASE_URL");
    expect(a.model.requests).toHaveLength(0);
  });

  test("a model name without a key or base URL is not a model", async () => {
    await using a = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: "gpt-x" } });
    const session = await a.newSession();
    expect(session.models).toBeUndefined();
  });
});

describe("svc/status and svc/control extension methods", () => {
  test("preflight: auth ok with a model, and an auth_env_error naming what to set without one", async () => {
    await using a = await startAgent();
    const ok = await a.agent.request<{ cells: Array<{ kind: string; status: string }> }>("svc/status/workspace/preflight", { cwd: a.workspace });
    expect(ok.cells.map((c) => [c.kind, c.status])).toEqual([
      ["auth", "ok"],
      ["providers", "ok"],
      ["tool_registry", "ok"],
      ["mcp_discovery", "disabled"],
      ["skills", "disabled"],
      ["egress", "not_started"],
    ]);
    await using none = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: undefined } });
    const missing = await none.agent.request<{ cells: Array<{ kind: string; status: string; errorKind?: string; hint?: string }> }>("svc/status/workspace/preflight", { cwd: none.workspace });
    expect(missing.cells[0]).toMatchObject({ kind: "auth", status: "error", errorKind: "auth_env_error" });
    expect(missing.cells[0]!.hint).toContain("OPENAI_MODEL");
  });

  test("tools lists every built-in tool", async () => {
    await using a = await startAgent();
    const tools = await a.agent.request<{ tools: Array<{ name: string; enabled: boolean }> }>("svc/status/workspace/tools", { cwd: a.workspace });
    expect(tools.tools.map((t) => t.name)).toEqual(["read_file", "write_file", "edit", "list_directory", "glob", "grep", "run_shell_command", "todo_write", "task"]);
  });

  test("session context reports the modes and models; approval_mode switches and answers previous/current", async () => {
    await using a = await startAgent({ trusted: true });
    const { sessionId } = await a.newSession();
    const switched = await a.agent.request("svc/control/session/approval_mode", { sessionId, mode: "plan" });
    expect(switched).toEqual({ previous: "auto", current: "plan" });
    const context = await a.agent.request<{ state: { modes: { currentModeId: string }; models: { currentModelId: string } } }>("svc/status/session/context", { sessionId });
    expect(context.state.modes.currentModeId).toBe("plan");
    expect(context.state.models.currentModelId).toBe("openai/mock-model");
    expect((await rpcError(a.agent.request("svc/control/session/approval_mode", { sessionId, mode: "wild" }))).code).toBe(-32602);
    expect((await rpcError(a.agent.request("svc/status/session/context", { sessionId: "nope" }))).code).toBe(-32002);
    expect((await rpcError(a.agent.request("svc/status/session/context", {}))).code).toBe(-32602);
  });
});
