/**
 * Session views answered by the live agent (`GET /session/:id/context-usage`, `/tasks`, `/stats`,
 * `/lsp`, `/resources`): asked through the profile, sanitized, stamped with the daemon's session
 * id; an agent that cannot answer gives 501 `agent_unsupported`, one that fails 502, and an
 * unknown session 404 `session_not_found`.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const MARK = "PLANTED";
const ENV = { FAKE_AGENT_NAME: "qwen-code", FAKE_AGENT_STATUS_SECRET: `${MARK}-agent-secret`, OPENAI_API_KEY: `sk-proj-${MARK}-openai-0123456789` };
const VIEWS = ["context-usage", "tasks", "stats", "lsp", "resources"];

describe("qwen profile", () => {
  test("each view is the agent's answer, sanitized, under the daemon's session id", async () => {
    await using d = await fakeAgentDaemon([], { env: ENV });
    const { sessionId } = await d.createSession();
    const bodies = new Map<string, any>();
    for (const view of VIEWS) {
      const reply = await d.json("GET", `/session/${sessionId}/${view}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ v: 1, sessionId, workspaceCwd: d.workspace });
      const text = JSON.stringify(reply.body);
      for (const needle of [MARK, "installedPath", "baseUrl", "/home/user", "headers", "command"]) expect({ view, needle, found: text.includes(needle) }).toEqual({ view, needle, found: false });
      bodies.set(view, reply.body);
    }
    expect(bodies.get("context-usage").usage).toMatchObject({ modelName: "fake-model-a", totalTokens: 1200, contextWindowSize: 131_072, isEstimated: true });
    expect(bodies.get("context-usage").usage.memoryFiles).toEqual([{ tokens: 100 }]);
    expect(bodies.get("context-usage").formattedText).toBe("1200 / 131072 tokens");
    expect(bodies.get("tasks").tasks).toEqual([expect.objectContaining({ id: "shell-1", kind: "shell", status: "running" })]);
    expect(bodies.get("tasks").tasks[0].env).toBeUndefined();
    expect(bodies.get("lsp").servers).toEqual([{ name: "tsserver", status: "ready", languages: ["typescript"], transport: "stdio" }]);
    expect(Object.keys(bodies.get("stats").models)).toEqual(["fake-model-a"]);
    expect(bodies.get("resources").skills.skills).toEqual([expect.objectContaining({ kind: "skill", name: "fake-skill" })]);
    expect(bodies.get("resources").mcp.servers.map((s: { name: string }) => s.name)).toEqual(["github", "remote"]);
    // Each snapshot carries its workspace route's envelope, as the reference's does.
    for (const part of ["skills", "mcp"]) expect(bodies.get("resources")[part]).toMatchObject({ v: 1, workspaceCwd: d.workspace, initialized: true });
    expect((await d.sentToAgent("qwen/status/session/context_usage", sessionId)).map((e) => e.params)).toEqual([{ sessionId, detail: false }]);
  });

  test("an agent that fails a view answers 502 agent_status_failed, its secrets replaced", async () => {
    await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: "error" } });
    const { sessionId } = await d.createSession();
    for (const view of VIEWS) {
      const reply = await d.json("GET", `/session/${sessionId}/${view}`);
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({ code: "agent_status_failed", errorKind: "protocol_error" });
      expect(JSON.stringify(reply.body)).not.toContain(MARK);
    }
  });

  for (const fault of ["garbage", "deep"]) {
    test(`an agent answering a view with ${fault === "garbage" ? "a non-object" : "a value nested beyond the bound"} answers 502 protocol_error (review findings ${fault === "garbage" ? 11 : 3})`, async () => {
      await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: fault } });
      const { sessionId } = await d.createSession();
      for (const view of VIEWS) {
        const reply = await d.json("GET", `/session/${sessionId}/${view}`);
        expect({ view, status: reply.status }).toEqual({ view, status: 502 });
        expect(reply.body).toMatchObject({ code: "agent_status_failed", errorKind: "protocol_error", view: expect.any(String) });
      }
    });
  }
});

describe("every profile", () => {
  test("a generic agent answers 501 agent_unsupported; an unknown session is 404", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession();
    for (const view of VIEWS) {
      const reply = await d.json("GET", `/session/${sessionId}/${view}`);
      expect(reply.status).toBe(501);
      expect(reply.body).toMatchObject({ code: "agent_unsupported", profile: "generic" });
      const unknown = await d.json("GET", `/session/no-such-session/${view}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe("session_not_found");
    }
    // The agent was never asked: standard ACP has no such method.
    expect((await d.wire()).some((e) => typeof e.method === "string" && e.method.includes("/status/session/"))).toBe(false);
  });
});
