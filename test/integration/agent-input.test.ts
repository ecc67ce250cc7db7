/**
 * What the daemon writes to an agent's stdin is queued, and the agent is judged by whether it reads:
 * one that keeps reading gets every prompt however much arrives at once; one busy for a while
 * (`@block`) is waited for; one that stops reading (`@deaf`) while bytes wait is ended after
 * STDIN_STALL_MS without progress and without a word from it. Its sessions end, the log says why,
 * and the next session gets a fresh child.
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

test("an agent whose event loop is busy for 12 s while another session sends a 1 MB prompt is waited for: both turns complete on the same child", async () => {
  await using d = await fakeAgentDaemon();
  const busy = await d.createSession({ sessionScope: "thread" });
  const other = await d.createSession({ sessionScope: "thread" });
  const [agent] = await d.waitForAgents(1);
  await using busyEvents = await d.events(busy.sessionId);
  await using otherEvents = await d.events(other.sessionId);

  expect((await d.json("POST", `/session/${busy.sessionId}/prompt`, { prompt: [{ type: "text", text: "@say busy\n@block 12000\n@say done" }] })).status).toBe(202);
  await busyEvents.first("session_update", (f) => JSON.stringify(f.data).includes("busy"));
  // More than a pipe's worth while the agent reads nothing and writes nothing.
  expect((await d.json("POST", `/session/${other.sessionId}/prompt`, { prompt: [{ type: "text", text: "y".repeat(1024 * 1024) }] })).status).toBe(202);

  expect((await busyEvents.first("turn_complete", undefined, 30_000)).data).toMatchObject({ stopReason: "end_turn" });
  expect((await otherEvents.first("turn_complete", undefined, 30_000)).data).toMatchObject({ stopReason: "end_turn" });
  for (const events of [busyEvents, otherEvents]) expect(events.types()).not.toContain("session_died");
  expect(pidAlive(agent!)).toBe(true);
  expect(await d.agentPids()).toEqual([agent!]);
  expect(d.logs.some((l) => l.includes("agent stopped reading its input"))).toBe(false);
}, 40_000);

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
  expect(d.logs.some((l) => l.includes("agent stopped reading its input") && l.includes(`none taken and no answer from it for ${STDIN_STALL_MS} ms`))).toBe(true);

  const fresh = await d.createSession({ sessionScope: "thread" });
  const pids = await d.waitForAgents(2);
  expect(pidAlive(pids[1]!)).toBe(true);
  await using freshEvents = await d.events(fresh.sessionId);
  expect((await d.json("POST", `/session/${fresh.sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] })).status).toBe(202);
  expect((await freshEvents.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
}, STDIN_STALL_MS + 30_000);
