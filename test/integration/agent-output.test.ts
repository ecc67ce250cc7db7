/**
 * An agent child that misbehaves on stdout (an over-long line, a flood of records that are not
 * JSON-RPC, non-JSON lines) must not take the daemon down: the channel is retired, the child is
 * stopped, its sessions die, and the next create starts a fresh child that works. The bad behaviour
 * is applied to the first child only (`test/fixtures/fake-agent-once.ts`).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const ONCE_ENTRY = join(import.meta.dir, "..", "fixtures", "fake-agent-once.ts");

/** A daemon whose first agent child runs with `firstChildEnv` added. */
async function daemonWithBadFirstChild(firstChildEnv: Record<string, string>, markerDir: string): Promise<FakeAgentDaemon> {
  return await fakeAgentDaemon([], {
    env: {
      SVC_CLI_ENTRY: ONCE_ENTRY,
      FAKE_AGENT_ONCE_MARKER: join(markerDir, "first-child"),
      FAKE_AGENT_ONCE_ENV: JSON.stringify(firstChildEnv),
    },
  });
}

/** After the first child was retired: the daemon is healthy and a new create gets a working child. */
async function expectRecovery(d: FakeAgentDaemon, firstPid: number): Promise<void> {
  await expectPidsGone([firstPid], 5000, "the retired child");
  expect((await d.json("GET", "/health")).status).toBe(200);
  expect((await d.json("GET", "/health?deep")).body).toMatchObject({ status: "ok", sessions: 0, channelAlive: false });

  const fresh = await d.createSession();
  expect(fresh.attached).toBe(false);
  const pids = await d.waitForAgents(2);
  expect(pids[1]).not.toBe(firstPid);
  expect(pidAlive(pids[1]!)).toBe(true);
  await using events = await d.events(fresh.sessionId);
  expect((await d.json("POST", `/session/${fresh.sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] })).status).toBe(202);
  expect((await events.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
}

describe("a misbehaving agent stdout retires the channel, not the daemon", () => {
  test("a 20 MiB line (over the 16 MiB message cap)", async () => {
    await using dir = tempDir("svc-once-");
    await using d = await daemonWithBadFirstChild({ FAKE_AGENT_HUGE_LINE_MB: "20" }, dir.path);
    // The line arrives right after the initialize answer, ahead of the session/new answer.
    const reply = await d.json("POST", "/session", {});
    // Before its first session opened, the child's end is a failed start, saying what the daemon cut it off for.
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "output_rejected", phase: "session/new", retryable: false });
    expect(reply.body.error).toContain("byte cap");
    const [first] = await d.waitForAgents(1);
    await expectRecovery(d, first!);
  });

  test("a flood of JSON records that are not JSON-RPC messages", async () => {
    await using dir = tempDir("svc-once-");
    await using d = await daemonWithBadFirstChild({ FAKE_AGENT_FLOOD_STDOUT: String(4 * 1024 * 1024) }, dir.path);
    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "output_rejected", phase: "session/new", retryable: false });
    expect(reply.body.error).toContain("flooded stdout");
    const [first] = await d.waitForAgents(1);
    await expectRecovery(d, first!);
  });

  test("non-JSON lines: a few are tolerated, a stream of them retires the channel and its sessions die", async () => {
    await using dir = tempDir("svc-once-");
    await using d = await daemonWithBadFirstChild({ FAKE_AGENT_GARBAGE: "1" }, dir.path);
    const a = await d.createSession({ sessionScope: "thread" });
    const b = await d.createSession({ sessionScope: "thread" });
    const [first] = await d.waitForAgents(1);
    await using eventsA = await d.events(a.sessionId);
    await using eventsB = await d.events(b.sessionId);

    // Every message comes with a junk line before it; a short turn still completes.
    await d.json("POST", `/session/${a.sessionId}/prompt`, { prompt: [{ type: "text", text: "hello" }] });
    expect((await eventsA.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });

    // Hundreds of updates mean hundreds of junk lines: past the daemon's bound the child is cut off.
    await d.json("POST", `/session/${a.sessionId}/prompt`, { prompt: [{ type: "text", text: "@stream 400" }] });
    for (const [events, sessionId] of [[eventsA, a.sessionId], [eventsB, b.sessionId]] as const) {
      expect((await events.first("session_died")).data).toMatchObject({ sessionId, reason: "channel_closed" });
      await events.waitForEnd();
    }
    await expectRecovery(d, first!);
  });
});
