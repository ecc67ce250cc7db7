/**
 * The wedge rule (`src/runtime/wedge-watch.ts`), end to end with the fake agent: a child that
 * stopped reading its stdin with less than a pipe's worth queued (every write still succeeds, so
 * the stdin watchdog never fires) is restarted once WEDGE_TIMEOUTS requests have timed out and it
 * has answered nothing for WEDGE_SILENCE_MS since the first of them was sent, however much it
 * streams; a slow child whose answers come later than the window is not (it answers the probe),
 * nor an idle one asked a burst of questions, nor one whose status reads hang.
 * Each test observes the silence window in real time (about half a minute).
 */
import { describe, expect, test } from "bun:test";
import { LIVENESS_METHOD } from "../../src/runtime/acp-channel.ts";
import { WEDGE_SILENCE_MS, WEDGE_TIMEOUTS } from "../../src/runtime/wedge-watch.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { expectPidsGone, pidAlive } from "../helpers/pids.ts";

const TIMEOUT_MS = 1000;
const ARGS = ["--initialize-timeout-ms", String(TIMEOUT_MS)];
const TEST_MS = WEDGE_SILENCE_MS + 30_000;

/** The agent still runs as the only child, no session of it died, status shows no restart, and `sessionId` still takes prompts. */
async function expectAlive(d: FakeAgentDaemon, pid: number, sessionId: string, events: Awaited<ReturnType<FakeAgentDaemon["events"]>>) {
  expect(events.types()).not.toContain("session_died");
  expect(pidAlive(pid)).toBe(true);
  expect(await d.agentPids()).toEqual([pid]);
  expect((await d.json("GET", "/daemon/status")).body.issues.map((i: { code: string }) => i.code)).not.toContain("agent_unresponsive");
  expect(d.logs.some((line) => line.includes("agent unresponsive"))).toBe(false);
  const { promptId } = (await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] })).body;
  expect((await events.first("turn_complete", (f) => f.data.promptId === promptId)).data).toMatchObject({ stopReason: "end_turn" });
}

describe("an agent that stops answering is restarted; a slow one is not", () => {
  test(
    "stops reading stdin: after the timeouts and the silence its sessions die agent_unresponsive, status and log say so, the next session works",
    async () => {
      await using d = await fakeAgentDaemon(ARGS);
      const { sessionId } = await d.createSession();
      const [first] = await d.waitForAgents(1);
      await using events = await d.events(sessionId);
      // Deaf but still streaming: what it writes unasked is no sign of life.
      await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@deaf 500" }] });
      await events.first("turn_complete");

      const replies = [];
      for (let i = 0; i < WEDGE_TIMEOUTS; i++) replies.push(await d.json("POST", "/session", { sessionScope: "thread" }));
      for (const reply of replies) expect(reply.body).toMatchObject({ code: "agent_timeout", phase: "session/new" });
      const died = await events.first("session_died", undefined, WEDGE_SILENCE_MS + 10_000);
      expect(died.data).toMatchObject({ sessionId, reason: "agent_unresponsive", message: expect.stringContaining(`${WEDGE_TIMEOUTS} requests in a row timed out (session/new`) });
      await events.waitForEnd();
      await expectPidsGone([first!], 6000, "the unresponsive agent");

      const status = await d.json("GET", "/daemon/status");
      expect(status.body.issues).toContainEqual({ code: "agent_unresponsive", severity: "warning", message: expect.stringContaining("was restarted: the agent stopped answering") });
      expect(d.logs.some((line) => line.includes("agent unresponsive; recycling it") && line.includes(`timeouts=${WEDGE_TIMEOUTS}`))).toBe(true);

      const fresh = await d.createSession();
      const [, second] = await d.waitForAgents(2);
      expect(pidAlive(second!)).toBe(true);
      await using freshEvents = await d.events(fresh.sessionId);
      await d.json("POST", `/session/${fresh.sessionId}/prompt`, { prompt: [{ type: "text", text: "hello again" }] });
      expect((await freshEvents.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    },
    TEST_MS,
  );

  test(
    "answers later than the window: its requests time out again and again, but it answers the probe at once, and it is never restarted",
    async () => {
      await using d = await fakeAgentDaemon(ARGS);
      const { sessionId } = await d.createSession();
      const [pid] = await d.waitForAgents(1);
      await using events = await d.events(sessionId);
      // From now on session/new is answered after the window (a session/new starting MCP servers for a while).
      await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@slow-new ${WEDGE_SILENCE_MS + 5000}` }] });
      await events.first("turn_complete");

      const started = Date.now();
      let timeouts = 0;
      // Past the silence window, counted from the first timeout, a rule without the probe would have fired by now.
      while (Date.now() - started < WEDGE_SILENCE_MS + 3 * TIMEOUT_MS) {
        expect((await d.json("POST", "/session", { sessionScope: "thread" })).status).toBe(504);
        timeouts++;
        // A client retrying every couple of seconds.
        await Bun.sleep(2 * TIMEOUT_MS);
      }
      expect(timeouts).toBeGreaterThan(2 * WEDGE_TIMEOUTS);
      expect((await d.wire()).filter((e) => e.method === LIVENESS_METHOD).length).toBeGreaterThanOrEqual(2);
      expect(events.types()).not.toContain("session_died");
      expect(pidAlive(pid!)).toBe(true);
      expect(await d.agentPids()).toEqual([pid!]);
      expect((await d.json("GET", "/daemon/status")).body.issues.map((i: { code: string }) => i.code)).not.toContain("agent_unresponsive");
      await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] });
      expect((await events.waitFor("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    },
    TEST_MS + 30_000,
  );

  test(
    "idle for longer than the window, then asked three session/new at once: they time out together, the late answers come, and nothing is restarted",
    async () => {
      await using d = await fakeAgentDaemon(ARGS);
      const { sessionId } = await d.createSession();
      const [pid] = await d.waitForAgents(1);
      await using events = await d.events(sessionId);
      await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@slow-new ${2 * TIMEOUT_MS}` }] });
      await events.first("turn_complete");

      // Nobody asks the agent anything for longer than the window: being idle is not being silent.
      await Bun.sleep(WEDGE_SILENCE_MS + 1000);
      const replies = await Promise.all(Array.from({ length: WEDGE_TIMEOUTS }, () => d.json("POST", "/session", { sessionScope: "thread" })));
      expect(replies.map((r) => r.status)).toEqual(Array(WEDGE_TIMEOUTS).fill(504));
      // The answers come 2 s after they were asked for; a verdict counted from the idle spell came at the third timeout.
      await Bun.sleep(2 * TIMEOUT_MS + 1000);
      await expectAlive(d, pid!, sessionId, events);
    },
    TEST_MS + 30_000,
  );

  test(
    "status reads that never come back are not the agent's silence: a full status against an agent whose status reads hang, a window of quiet, and its session lives",
    async () => {
      await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code", FAKE_AGENT_STATUS_FAULT: "hang" } });
      const { sessionId } = await d.createSession();
      const [pid] = await d.waitForAgents(1);
      await using events = await d.events(sessionId);
      await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "hello" }] });
      await events.first("turn_complete");

      const status = await d.json("GET", "/daemon/status?detail=full");
      expect(status.status).toBe(200);
      expect(status.body.issues.map((i: { code: string }) => i.code)).toContain("workspace_status_unavailable");
      const reads = (await d.wire()).filter((e) => typeof e.method === "string" && e.method.startsWith("qwen/status/workspace/"));
      expect(reads.length).toBeGreaterThanOrEqual(WEDGE_TIMEOUTS);
      // Long enough for a verdict had those timeouts counted; nothing else is asked meanwhile.
      await Bun.sleep(WEDGE_SILENCE_MS + 5000);
      await expectAlive(d, pid!, sessionId, events);
    },
    TEST_MS + 30_000,
  );
});
