/**
 * The idle reaper (`--session-idle-timeout-ms`, scanned every `--session-reap-interval-ms`): an idle
 * session is closed; heartbeats, an open SSE subscriber or running work keep one alive. Each test
 * has an untouched "control" session, created after the one under test: the scan that reaps the
 * control would have reaped the older session too, so seeing it alive then is the proof.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { pidGone } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";

const IDLE_MS = 400;
const REAPER = ["--session-idle-timeout-ms", String(IDLE_MS), "--session-reap-interval-ms", "100"];

const statusOf = async (d: FakeAgentDaemon, sessionId: string) => (await d.json("GET", `/session/${sessionId}/status`)).status;
const reaped = (d: FakeAgentDaemon, sessionId: string) => until(async () => (await statusOf(d, sessionId)) === 404, 5000, `session ${sessionId} to be reaped`);

describe("idle reaper", () => {
  test("closes an idle session, tells the agent, and stops the child it leaves idle", async () => {
    await using d = await fakeAgentDaemon(REAPER);
    const { sessionId } = await d.createSession();
    const created = performance.now();
    const [pid] = await d.waitForAgents(1);

    await reaped(d, sessionId);
    // Not before it was idle for the timeout (less the moment between its creation and our reply).
    expect(performance.now() - created).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(d.logs.some((l) => l.includes("reaping idle session") && l.includes(sessionId))).toBe(true);
    // The reaper forgets the session before it tells the agent, so the 404 can come first.
    await until(async () => (await d.wire()).some((e) => e.method === "session/close"), 5000, "session/close to reach the agent");
    expect((await d.wire()).filter((e) => e.method === "session/close").map((e) => e.params)).toEqual([{ sessionId }]);
    await until(() => pidGone(pid!), 5000, "the idle child to exit");

    // The next create starts over.
    expect((await d.createSession()).attached).toBe(false);
  });

  test("heartbeats defer reaping; once they stop, the session is reaped", async () => {
    await using d = await fakeAgentDaemon(REAPER);
    const kept = await d.createSession({ sessionScope: "thread" });
    const control = await d.createSession({ sessionScope: "thread" });

    let beating = true;
    const heartbeats = (async () => {
      let sent = 0;
      while (beating) {
        const reply = await d.json("POST", `/session/${kept.sessionId}/heartbeat`, {}, { "X-Svc-Client-Id": kept.clientId });
        expect(reply.status).toBe(200);
        sent++;
        await Bun.sleep(IDLE_MS / 6);
      }
      return sent;
    })();
    await reaped(d, control.sessionId);
    expect(await statusOf(d, kept.sessionId)).toBe(200);
    beating = false;
    expect(await heartbeats).toBeGreaterThan(3);

    await reaped(d, kept.sessionId);
  });

  test("a session with an open SSE subscriber is not reaped; it is once the subscriber leaves", async () => {
    await using d = await fakeAgentDaemon(REAPER);
    const watched = await d.createSession({ sessionScope: "thread" });
    const control = await d.createSession({ sessionScope: "thread" });
    await using events = await d.events(watched.sessionId);

    await reaped(d, control.sessionId);
    expect(await statusOf(d, watched.sessionId)).toBe(200);
    expect(events.ended).toBe(false);

    events.close();
    await reaped(d, watched.sessionId);
  });

  test("a session with a running prompt is not reaped; it is once the prompt ends", async () => {
    await using d = await fakeAgentDaemon(REAPER);
    const busy = await d.createSession({ sessionScope: "thread" });
    const control = await d.createSession({ sessionScope: "thread" });
    expect((await d.json("POST", `/session/${busy.sessionId}/prompt`, { prompt: [{ type: "text", text: "@hang" }] })).status).toBe(202);

    await reaped(d, control.sessionId);
    const status = await d.json("GET", `/session/${busy.sessionId}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ hasActivePrompt: true, activeWorkState: "active" });

    expect((await d.json("POST", `/session/${busy.sessionId}/cancel`)).status).toBe(204);
    await reaped(d, busy.sessionId);
  });
});
