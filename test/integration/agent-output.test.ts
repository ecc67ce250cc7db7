/**
 * An agent child that misbehaves on stdout must not take the daemon down. A line over the frame
 * bound (16 MiB) ends nothing: it is dropped and logged with its size, its owner hears of it (a
 * session gets `agent_output_rejected`, a request of the daemon fails `output_rejected`, a request
 * of the agent is answered with an error), and the child and its other sessions go on. A flood of
 * records that are not JSON-RPC, or of non-JSON lines, retires the channel: the child is stopped,
 * its sessions die saying why (`output_rejected`), and the next create starts a fresh child that
 * works. Where the bad behaviour is scripted by environment, it applies to the first child only
 * (`test/fixtures/fake-agent-once.ts`).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MAX_MESSAGE_BYTES } from "../../src/runtime/acp-channel.ts";
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

const HUGE_MIB = 17;
const HUGE_BYTES = HUGE_MIB * 1024 * 1024;

/** The daemon's log line for a dropped line of about `bytes` bytes. */
const droppedLogLine = (d: FakeAgentDaemon, minBytes: number) =>
  d.logs.find((line) => line.includes("agent output line over the frame bound dropped") && Number(/"?bytes"?[=:](\d+)/.exec(line)?.[1]) >= minBytes);

describe("a line over the frame bound is dropped; the channel, the child and the other sessions go on", () => {
  test("a 20 MiB notification that names no session, right after initialize: logged, nothing else", async () => {
    await using dir = tempDir("svc-once-");
    await using d = await daemonWithBadFirstChild({ FAKE_AGENT_HUGE_LINE_MB: "20" }, dir.path);
    const { sessionId } = await d.createSession();
    const [pid] = await d.waitForAgents(1);
    await using events = await d.events(sessionId);
    await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] });
    expect((await events.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    expect(pidAlive(pid!)).toBe(true);
    expect(droppedLogLine(d, 20 * 1024 * 1024 - 1)).toContain("method=_fake/huge");
  });

  test("a 17 MiB update in one session: that session hears agent_output_rejected and its turn goes on; the other session never notices", async () => {
    await using d = await fakeAgentDaemon();
    const a = await d.createSession({ sessionScope: "thread" });
    const b = await d.createSession({ sessionScope: "thread" });
    await using eventsA = await d.events(a.sessionId);
    await using eventsB = await d.events(b.sessionId);
    const admitted = await d.json("POST", `/session/${a.sessionId}/prompt`, { prompt: [{ type: "text", text: `@say before\n@huge ${HUGE_MIB} update\n@say after` }] });
    const rejected = await eventsA.first("agent_output_rejected");
    expect(rejected.data).toEqual({ sessionId: a.sessionId, bytes: expect.any(Number), limit: MAX_MESSAGE_BYTES, method: "session/update" });
    expect(rejected.data.bytes).toBeGreaterThan(HUGE_BYTES);
    expect(rejected.envelope.promptId).toBe(admitted.body.promptId);
    expect((await eventsA.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    const texts = eventsA.frames.filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "agent_message_chunk").map((f) => f.data.update.content.text);
    expect(texts).toEqual(["before", "after"]);
    expect(eventsA.types()).not.toContain("session_died");

    await d.json("POST", `/session/${b.sessionId}/prompt`, { prompt: [{ type: "text", text: "b is fine" }] });
    expect((await eventsB.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    expect(eventsB.types()).not.toContain("agent_output_rejected");
    expect(await d.agentPids()).toHaveLength(1);
    expect(droppedLogLine(d, HUGE_BYTES)).toContain(a.sessionId);
  });

  test("a 17 MiB answer to a prompt: that prompt ends turn_error output_rejected, the session goes on", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession();
    await using events = await d.events(sessionId);
    const first = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@huge ${HUGE_MIB} response` }] });
    const failed = await events.first("turn_error");
    expect(failed.data).toMatchObject({ promptId: first.body.promptId, code: "output_rejected", errorKind: "protocol_error" });
    expect(failed.data.message).toContain(`${MAX_MESSAGE_BYTES}-byte line limit`);
    await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "next" }] });
    expect((await events.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    expect(await d.agentPids()).toHaveLength(1);
    expect(droppedLogLine(d, HUGE_BYTES)).toBeDefined();
  });

  test("a 17 MiB permission request: the agent is answered with an error at once, the session hears of it", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession();
    await using events = await d.events(sessionId);
    await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@huge ${HUGE_MIB} permission` }] });
    expect((await events.first("agent_output_rejected")).data).toMatchObject({ sessionId, method: "session/request_permission", limit: MAX_MESSAGE_BYTES });
    expect((await events.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    const said = events.frames.filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "agent_message_chunk").map((f) => f.data.update.content.text as string);
    expect(said).toEqual([expect.stringContaining("permission failed: the agent's request session/request_permission was")]);
    expect(events.types()).not.toContain("permission_request");
  });
});

describe("a flood on stdout retires the channel, not the daemon", () => {
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
      expect((await events.first("session_died")).data).toMatchObject({ sessionId, reason: "output_rejected", message: expect.stringContaining("flooded stdout") });
      await events.waitForEnd();
    }
    await expectRecovery(d, first!);
  });
});
