/**
 * `/daemon/status` against a daemon whose agent is the real fake agent: neither detail starts an
 * agent child, the issue codes that live state can provoke are raised while it holds (capacity,
 * pending permissions, the agent starting or failing to start, preflight errors) and cleared after,
 * and no status payload carries a secret, a client id or an agent session id.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { completeTurn, openSession, untilTurnEnds } from "../helpers/prompt-session.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

type Json = Record<string, any>;

const status = async (d: FakeAgentDaemon, query = "") => {
  const reply = await d.json<Json>("GET", `/daemon/status${query}`);
  expect(reply.status).toBe(200);
  return reply.body;
};
const issues = (body: Json) => (body.issues as Json[]).map((i) => [i.code, i.severity]);

describe("no agent child", () => {
  test("summary and full on an idle daemon start none", async () => {
    await using d = await fakeAgentDaemon();
    const summary = await status(d);
    expect(summary.full).toBeUndefined();
    expect(summary.log).toBeUndefined();
    const full = await status(d, "?detail=full");
    expect(Object.keys(full.full.workspace).sort()).toEqual(["env", "mcp", "preflight", "providers", "skills", "tools"]);
    for (const name of ["preflight", "mcp", "skills", "providers", "tools"]) expect(full.full.workspace[name].data.initialized).toBe(false);
    expect(full.runtime.channel.live).toBe(false);
    expect(await d.agentPids()).toEqual([]);
  });
});

describe("issues from live state", () => {
  test("session_capacity_high and pending_permissions hold while their condition does", async () => {
    await using d = await fakeAgentDaemon(["--max-sessions", "1"]);
    expect(issues(await status(d))).toEqual([]);
    await using s = await openSession(d);
    expect(issues(await status(d))).toEqual([["session_capacity_high", "warning"]]);

    await using sse = await s.events();
    const admitted = await s.prompt("@permission", { clientId: s.clientId });
    expect(admitted.status).toBe(202);
    const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === admitted.body.promptId);
    const body = await status(d);
    expect(issues(body)).toEqual([
      ["session_capacity_high", "warning"],
      ["pending_permissions", "warning"],
    ]);
    expect(body.status).toBe("warning");

    expect((await s.vote(request.data.requestId, { outcome: "selected", optionId: "proceed_once" })).status).toBe(200);
    await untilTurnEnds(sse, admitted.body.promptId);
    expect(issues(await status(d))).toEqual([["session_capacity_high", "warning"]]);
  });

  test("daemon_runtime_starting while the agent starts; daemon_runtime_failed and preflight_error once it failed", async () => {
    await using d = await fakeAgentDaemon(["--initialize-timeout-ms", "3000"], { env: { FAKE_AGENT_INIT_HANG: "1" } });
    const creating = d.json("POST", "/session", {});
    const starting: Json = await until(async () => {
      const body = await status(d);
      return issues(body).some(([code]) => code === "daemon_runtime_starting") ? body : null;
    }, 10_000, "the start to be reported");
    expect(issues(starting)).toEqual([["daemon_runtime_starting", "warning"]]);
    expect(starting.status).toBe("warning");

    const created = await creating;
    expect(created.status).toBe(504);
    expect(created.body.code).toBe("init_timeout");
    const failed = await status(d);
    expect(issues(failed)).toEqual([["daemon_runtime_failed", "error"]]);
    expect(failed.issues[0].message).toContain("init_timeout");
    expect(failed.status).toBe("error");
    const full = await status(d, "?detail=full");
    expect(issues(full)).toEqual([
      ["daemon_runtime_failed", "error"],
      ["preflight_error", "error"],
    ]);
  });

  test("a missing agent entry: preflight_error at once, daemon_runtime_failed after a create; a start that succeeds clears both", async () => {
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.ts");
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry } });
    expect(issues(await status(d))).toEqual([]);
    expect(issues(await status(d, "?detail=full"))).toEqual([["preflight_error", "error"]]);
    expect((await d.json("POST", "/session", {})).status).toBe(503);
    expect(issues(await status(d))).toEqual([["daemon_runtime_failed", "error"]]);
    expect(await d.agentPids()).toEqual([]);

    writeFileSync(entry, `import ${JSON.stringify(FAKE_AGENT_ENTRY)};\n`);
    await d.createSession();
    expect(issues(await status(d))).toEqual([]);
    expect(issues(await status(d, "?detail=full"))).toEqual([]);
  });
});

describe("nothing secret", () => {
  test("no API key, client id or agent session id in summary or full, with live sessions", async () => {
    // The token alone is covered by http/daemon-status.test.ts (a token makes these creates need it).
    const API_KEY = "sk-status-secret-77aa";
    await using d = await fakeAgentDaemon([], { env: { OPENAI_API_KEY: API_KEY, ANTHROPIC_API_KEY: API_KEY, DASHSCOPE_API_KEY: API_KEY } });
    await using s = await openSession(d);
    await completeTurn(s, "@say hello");
    const [sent] = await d.sentToAgent("session/prompt");
    const agentSessionId = (sent!.params as { sessionId: string }).sessionId;
    for (const query of ["", "?detail=full"]) {
      const text = JSON.stringify(await status(d, query));
      for (const secret of [API_KEY, s.clientId, agentSessionId]) expect(text).not.toContain(secret);
    }
  });
});

describe("full with a live agent", () => {
  test("the agent's sections come from it, sanitized; a section whose agent part hangs is unavailable with workspace_status_unavailable", async () => {
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code", FAKE_AGENT_STATUS_SECRET: "sk-planted-daemon-status" } });
    await d.createSession();
    const full = await status(d, "?detail=full");
    expect(full.full.workspace.mcp.data.initialized).toBe(true);
    expect(full.full.workspace.tools.status).not.toBe("unavailable");
    expect(JSON.stringify(full)).not.toContain("sk-planted-daemon-status");

    await using hung = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code", FAKE_AGENT_STATUS_FAULT: "hang" } });
    await hung.createSession();
    const slow = await status(hung, "?detail=full");
    for (const name of ["mcp", "skills", "tools"]) expect(slow.full.workspace[name]).toMatchObject({ status: "unavailable", error: { kind: "timeout" } });
    expect(slow.full.workspace.env.status).not.toBe("unavailable");
    expect(issues(slow)).toContainEqual(["workspace_status_unavailable", "warning"]);
  });
});
