/**
 * What the daemon writes to an agent's stdin is queued, and the agent is judged by whether it reads:
 * one that keeps reading gets every prompt however much arrives at once; one that stops reading
 * (`@deaf`) while bytes wait is ended after STDIN_STALL_MS without progress. Its sessions end, the
 * log says why, and the next session gets a fresh child.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";
import { MAX_STDIN_QUEUE_BYTES, STDIN_STALL_MS } from "../../src/runtime/stdin-queue.ts";

/** A prompt under the JSON body cap; two of them pass the stdin queue's bound together. */
const BIG_TEXT = "a".repeat(9 * 1000 * 1000);

test("concurrent prompts whose bytes together pass the stdin queue's bound all reach an agent that reads", async () => {
  expect(3 * BIG_TEXT.length).toBeGreaterThan(MAX_STDIN_QUEUE_BYTES);
  await using d = await fakeAgentDaemon();
  const sessions = [];
  for (let i = 0; i < 3; i++) sessions.push(await d.createSession({ sessionScope: "thread" }));
  const [agent] = await d.waitForAgents(1);
  const streams = await Promise.all(sessions.map(({ sessionId }) => d.events(sessionId)));
  try {
    const replies = await Promise.all(
      sessions.map(({ sessionId }) => d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: BIG_TEXT }] })),
    );
    expect(replies.map((r) => r.status)).toEqual([202, 202, 202]);
    for (const events of streams) expect((await events.first("turn_complete", undefined, 20_000)).data).toMatchObject({ stopReason: "end_turn" });
    for (const { sessionId } of sessions) expect((await d.json("GET", `/session/${sessionId}/status`)).status).toBe(200);
  } finally {
    for (const events of streams) await events[Symbol.asyncDispose]();
  }
  expect(pidAlive(agent!)).toBe(true);
  expect(d.logs.some((l) => l.includes("agent stopped reading its input"))).toBe(false);
});

test("an agent that stops reading its input while bytes wait is ended; the next session gets a fresh child", async () => {
  await using d = await fakeAgentDaemon();
  const deafSession = await d.createSession({ sessionScope: "thread" });
  const other = await d.createSession({ sessionScope: "thread" });
  const [agent] = await d.waitForAgents(1);

  expect((await d.json("POST", `/session/${deafSession.sessionId}/prompt`, { prompt: [{ type: "text", text: "@deaf\n@hang" }] })).status).toBe(202);
  await until(async () => (await d.wire()).some((e) => e.event === "deaf"), 5000, "the agent to stop reading");
  // Accepted while the channel lives; it cannot all fit in the pipe, so bytes wait with none taken.
  expect((await d.json("POST", `/session/${other.sessionId}/prompt`, { prompt: [{ type: "text", text: BIG_TEXT }] })).status).toBe(202);

  await expectPidsGone([agent!], STDIN_STALL_MS + 10_000, "the wedged agent");
  for (const { sessionId } of [deafSession, other])
    await until(async () => (await d.json("GET", `/session/${sessionId}/status`)).status === 404, 5000, "the wedged agent's sessions to end");
  expect(d.logs.some((l) => l.includes("agent stopped reading its input") && l.includes(`none taken for ${STDIN_STALL_MS} ms`))).toBe(true);

  const fresh = await d.createSession({ sessionScope: "thread" });
  const pids = await d.waitForAgents(2);
  expect(pidAlive(pids[1]!)).toBe(true);
  await using freshEvents = await d.events(fresh.sessionId);
  expect((await d.json("POST", `/session/${fresh.sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] })).status).toBe(202);
  expect((await freshEvents.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
});
