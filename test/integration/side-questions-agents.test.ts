/**
 * Side questions with third-party agents (the fake agent): a generic ACP agent has no side-question
 * path (501); a qwen-code agent answers through its own `qwen/control/session/btw`, its failure is
 * 502, and a question still waiting when its session closes ends with the session (409).
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { until } from "../helpers/until.ts";

test("a generic ACP agent cannot answer a side question: 501, and nothing is sent to it", async () => {
  await using d = await fakeAgentDaemon();
  const { sessionId } = await d.createSession();
  const refused = await d.json("POST", `/session/${sessionId}/btw`, { question: "what now?" });
  expect(refused.status).toBe(501);
  expect(refused.body).toMatchObject({ code: "agent_control_unsupported", profile: "generic" });
  expect(await d.sentToAgent("svc/control/session/generate")).toHaveLength(0);
  expect(await d.sentToAgent("qwen/control/session/btw")).toHaveLength(0);
});

test("a qwen-code agent answers through its own method; its failure is 502; a closing session ends a waiting question", async () => {
  await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code" } });
  const { sessionId } = await d.createSession();
  const answered = await d.json("POST", `/session/${sessionId}/btw`, { question: " where are we? " });
  expect(answered.status).toBe(200);
  expect(answered.body).toEqual({ sessionId, answer: "btw: where are we?" });
  const sent = await d.sentToAgent("qwen/control/session/btw", sessionId);
  expect(sent).toHaveLength(1);

  const failed = await d.json("POST", `/session/${sessionId}/btw`, { question: "@fail" });
  expect(failed.status).toBe(502);
  expect(failed.body).toMatchObject({ code: "agent_control_failed", agentErrorKind: "model_error" });

  // Another session keeps the agent child running: the closing session alone ends the question.
  await d.createSession({ sessionScope: "thread" });
  const waiting = d.json("POST", `/session/${sessionId}/btw`, { question: "@hang" });
  await until(async () => (await d.sentToAgent("qwen/control/session/btw", sessionId)).length === 3, 5000, "the waiting question sent");
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBeLessThan(300);
  const ended = await waiting;
  expect(ended.status).toBe(409);
  expect(ended.body).toMatchObject({ code: "session_closed", sessionId });
});
