/**
 * `POST /session/:id/worktree-reset` and `POST /session/:id/tasks/:taskId/workflow-action`: the
 * answers for a session outside a worktree (the worktree cases: `integration/worktree-sessions.test.ts`)
 * and for workflow tasks, which no agent svc runs has.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const TOKEN = "workflow-Token.1";
const BEARER = { Authorization: `Bearer ${TOKEN}` };

describe("worktree reset", () => {
  test("a live session is not a worktree session (409), an unknown one is 404, a virtual subagent 400", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const live = await d.json("POST", `/session/${sessionId}/worktree-reset`, {});
    expect([live.status, live.body]).toEqual([409, { error: `Session ${sessionId} is not a worktree session`, code: "worktree_reset_unsupported", sessionId }]);
    expect((await d.json("POST", "/session/no-such-session/worktree-reset", {})).status).toBe(404);
    const virtual = await d.json("POST", "/session/subagent.abc/worktree-reset", {});
    expect([virtual.status, virtual.body.code]).toEqual([400, "unsupported_action"]);
    const caps = await d.json("GET", "/capabilities");
    expect(caps.body.features).toContain("session_worktree_reset_v1");
  });
});

describe("workflow action", () => {
  test("a strict mutation: refused without a configured token", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const reply = await d.json("POST", `/session/${sessionId}/tasks/t1/workflow-action`, { action: "pause" });
    expect([reply.status, reply.body.code]).toEqual([401, "token_required"]);
  });

  test("the action is checked (400), the session looked up (404), then 501 with the reason", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN]);
    const { sessionId } = await d.createSession({ sessionScope: "thread" }, BEARER);
    for (const body of [{ action: "explode" }, {}, { action: 1 }, []]) {
      const bad = await d.json("POST", `/session/${sessionId}/tasks/t1/workflow-action`, body, BEARER);
      expect([bad.status, bad.body.code]).toEqual([400, "invalid_request"]);
    }
    expect((await d.json("POST", "/session/no-such-session/tasks/t1/workflow-action", { action: "pause" }, BEARER)).status).toBe(404);
    const reply = await d.json("POST", `/session/${sessionId}/tasks/t1/workflow-action`, { action: "run-script", script: "x" }, BEARER);
    expect(reply.status).toBe(501);
    expect(reply.body).toMatchObject({ code: "agent_unsupported", sessionId, taskId: "t1", action: "run-script" });
  });
});
