/**
 * The idle reaper (`--session-idle-timeout-ms`, scanned every `--session-reap-interval-ms`): an idle
 * session is closed; heartbeats, an open SSE subscriber or running work keep one alive, and the end
 * of a turn starts its idle time afresh. Most tests have an untouched "control" session, created
 * after the one under test: the scan that reaps the control would have reaped the older session
 * too, so seeing it alive then is the proof. Also: a child left without sessions is stopped
 * `--channel-idle-timeout-ms` after the last one closed, never earlier.
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
    // The daemon closed it, not a client: the 404 says it can be brought back, so a client away (a laptop asleep) restores it.
    expect((await d.json("GET", `/session/${sessionId}/status`)).body).toMatchObject({ code: "session_not_found", restorable: true, persistedState: "restorable" });
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

describe("activity", () => {
  test("a turn longer than the idle timeout, with nobody watching, leaves the session a whole idle period after it ends", async () => {
    const idleMs = 600;
    await using d = await fakeAgentDaemon(["--session-idle-timeout-ms", String(idleMs), "--session-reap-interval-ms", "100"]);
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    expect((await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@sleep 1200\n@say done" }] })).status).toBe(202);

    await until(async () => (await d.json("GET", `/session/${sessionId}/status`)).body.hasActivePrompt === false, 10_000, "the turn to end");
    const ended = performance.now();
    await reaped(d, sessionId);
    // Observed late by up to one status poll; a session reaped at the turn's end would go within a scan.
    expect(performance.now() - ended).toBeGreaterThanOrEqual(idleMs / 2);
  });
});

describe("the agent child left without sessions", () => {
  test("is stopped --channel-idle-timeout-ms after the last session closed, not after an earlier close", async () => {
    const idleMs = 800;
    await using d = await fakeAgentDaemon(["--channel-idle-timeout-ms", String(idleMs)]);
    const first = await d.createSession({ sessionScope: "thread" });
    const [pid] = await d.waitForAgents(1);
    expect((await d.json("DELETE", `/session/${first.sessionId}`)).status).toBe(204);

    // A new session on the same child while the first close's stop is pending, closed later.
    const second = await d.createSession({ sessionScope: "thread" });
    expect(await d.agentPids()).toEqual([pid!]);
    await Bun.sleep(idleMs / 2); // spacing between the two closes, not a wait for an outcome
    expect((await d.json("DELETE", `/session/${second.sessionId}`)).status).toBe(204);
    const lastClose = performance.now();

    await until(() => pidGone(pid!), 10_000, "the idle child to exit");
    expect(performance.now() - lastClose).toBeGreaterThanOrEqual(idleMs * 0.75);
  });
});
