/**
 * What the daemon writes to an agent's stdin is bounded: an agent that stops reading (`@deaf`) while
 * prompts keep coming is treated as wedged once MAX_STDIN_QUEUE_BYTES are waiting. It is ended, its
 * sessions end, the log says why, and the next session gets a fresh child.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";
import { MAX_STDIN_QUEUE_BYTES } from "../../src/runtime/stdin-queue.ts";

/** A prompt under the JSON body cap; enough of them, unread, pass the stdin bound. */
const BIG_TEXT = "a".repeat(6 * 1024 * 1024);

test("an agent that stops reading its input is ended once the stdin queue is full; the next session gets a fresh child", async () => {
  await using d = await fakeAgentDaemon();
  const deafSession = await d.createSession({ sessionScope: "thread" });
  const others = [];
  const needed = Math.ceil(MAX_STDIN_QUEUE_BYTES / BIG_TEXT.length) + 1;
  for (let i = 0; i < needed; i++) others.push(await d.createSession({ sessionScope: "thread" }));
  const [agent] = await d.waitForAgents(1);

  expect((await d.json("POST", `/session/${deafSession.sessionId}/prompt`, { prompt: [{ type: "text", text: "@deaf\n@hang" }] })).status).toBe(202);
  await until(async () => (await d.wire()).some((e) => e.event === "deaf"), 5000, "the agent to stop reading");
  // Each prompt is accepted (202) while the channel lives; once the queue overflowed, the sessions are gone (404).
  const statuses: number[] = [];
  for (const { sessionId } of others) statuses.push((await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: BIG_TEXT }] })).status);
  expect(statuses.slice(0, needed - 1)).toEqual(Array(needed - 1).fill(202));

  await expectPidsGone([agent!], 5000, "the wedged agent");
  for (const { sessionId } of [deafSession, ...others]) expect((await d.json("GET", `/session/${sessionId}`)).status).toBe(404);
  expect(d.logs.some((l) => l.includes("agent stopped reading its input"))).toBe(true);

  const fresh = await d.createSession({ sessionScope: "thread" });
  const pids = await d.waitForAgents(2);
  expect(pidAlive(pids[1]!)).toBe(true);
  await using freshEvents = await d.events(fresh.sessionId);
  expect((await d.json("POST", `/session/${fresh.sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] })).status).toBe(202);
  expect((await freshEvents.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
});
