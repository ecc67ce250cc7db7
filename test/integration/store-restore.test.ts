/**
 * `POST /session/:id/load` and `/resume` of persisted sessions, with the fake agent: after a
 * kill -9 the load's replay holds the last event a subscriber saw; concurrent restores coalesce or
 * conflict; a slow restore is bounded by `--session-restore-timeout-ms`.
 */
import { describe, expect, test } from "bun:test";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { spawnDaemon } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const post = (url: string, body: unknown = {}) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** Records a closed session on a daemon of `home`/`workspace` and returns its id. */
async function closedSession(home: string, workspace: string, text = "@say before the restart"): Promise<string> {
  await using d = await fakeAgentDaemon([], { workspace, env: { SVC_HOME: home } });
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  await using events = await d.events(sessionId);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId);
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  return sessionId;
}

describe("load and resume", () => {
  test("kill -9 mid-stream, restart: load returns the journal with the last event a subscriber saw, on a new epoch; the session works again", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const args = ["--port", "0", "--workspace", ws.path, "--log-level", "debug"];
    const env = { SVC_HOME: home.path, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY };
    let sessionId: string;
    let seen: { id?: number; envelope: unknown }[];
    let firstEpoch: string;
    {
      await using daemon = await spawnDaemon(args, { cwd: ws.path, env });
      const created = (await (await post(`${daemon.url}/session`, { sessionScope: "thread" })).json()) as { sessionId: string };
      sessionId = created.sessionId;
      const sse = await openSse(`${daemon.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
      firstEpoch = sse.headers.get("x-svc-event-epoch")!;
      expect((await post(`${daemon.url}/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@stream 400 5" }] })).status).toBe(202);
      await until(() => sse.frames.filter((f) => f.id !== undefined).length >= 30, 10_000, "30 events");
      daemon.proc.kill("SIGKILL");
      await daemon.proc.exited;
      await until(() => sse.ended, 5000, "the stream to end");
      await Promise.resolve(sse[Symbol.asyncDispose]()).catch(() => {});
      seen = sse.frames.filter((f) => f.id !== undefined);
    }

    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path } });
    const list = await d.json("GET", `/workspace/${encodeURIComponent(ws.path)}/sessions`);
    expect(list.body.sessions).toEqual([expect.objectContaining({ sessionId, live: false, persistedState: "interrupted" })]);

    const load = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(load.status).toBe(200);
    expect(load.body).toMatchObject({ sessionId, attached: false, restoredBy: "session/load", workspaceCwd: ws.path, liveJournal: [] });
    expect(load.body.eventEpoch).not.toBe(firstEpoch);
    const replay = load.body.compactedReplay as unknown[];
    // Each item names the epoch it was published in (its id means something only with it).
    const asReplayed = (envelope: any) => ({ ...envelope, _meta: { ...envelope._meta, eventEpoch: firstEpoch } });
    for (const frame of seen) expect(replay).toContainEqual(asReplayed(frame.envelope));
    expect(replay).toContainEqual(asReplayed(seen.at(-1)!.envelope));
    expect(await d.sentToAgent("session/load", sessionId)).toHaveLength(1);

    await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
    expect(events.headers.get("x-svc-event-epoch")).toBe(load.body.eventEpoch);
    const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say back again" }] });
    expect(prompt.status).toBe(202);
    await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId);
    // The agent's own replay during session/load is not republished: the journal is the history.
    expect(events.frames.some((f) => JSON.stringify(f.data ?? {}).includes("(replayed)"))).toBe(false);

    // Loading a live session attaches to it.
    const again = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(again.body).toMatchObject({ attached: true, restoredBy: "live", eventEpoch: load.body.eventEpoch });
  }, 30_000);

  test("resume answers without a replay; an unknown id is 404", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const sessionId = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path } });
    const resume = await d.json("POST", `/session/${sessionId}/resume`);
    expect(resume.status).toBe(200);
    expect(resume.body).toMatchObject({ sessionId, attached: false, restoredBy: "session/resume", lastEventId: expect.any(Number) });
    expect(resume.body.compactedReplay).toBeUndefined();
    const missing = await d.json("POST", "/session/no-such-session/load", {});
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "session_not_found", sessionId: "no-such-session" });
    // No body is fine (above); a body that is not a JSON object is refused before anything is restored.
    for (const action of ["load", "resume"])
      for (const body of ["[]", '"x"', "5"]) {
        const res = await d.fetch(`/session/no-such-session/${action}`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        expect({ action, body, status: res.status, answer: await res.json() }).toEqual({ action, body, status: 400, answer: { error: "The request body must be a JSON object", code: "invalid_request" } });
      }
  });

  test("concurrent loads coalesce onto one restore; a resume racing them is 409 restore_in_progress with Retry-After: 5", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const sessionId = await closedSession(home.path, ws.path);
    // A slow agent start keeps the restore in progress while the others arrive.
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_INIT_DELAY_MS: "700" } });
    const first = d.json("POST", `/session/${sessionId}/load`, {});
    await until(async () => (await d.agentPids()).length === 1, 5000, "the agent to start");
    const second = d.json("POST", `/session/${sessionId}/load`, {});
    const resume = await d.json("POST", `/session/${sessionId}/resume`, {});
    expect(resume.status).toBe(409);
    expect(resume.headers.get("retry-after")).toBe("5");
    expect(resume.body).toMatchObject({ code: "restore_in_progress", sessionId, activeAction: "load", requestedAction: "resume" });
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.attached, b.body.attached]).toEqual([false, true]);
    expect(b.body.eventEpoch).toBe(a.body.eventEpoch);
    expect(a.body.clientId).not.toBe(b.body.clientId);
    expect(await d.sentToAgent("session/load", sessionId)).toHaveLength(1);
  });

  test("a restore slower than --session-restore-timeout-ms is 504 session_restore_timeout; the retry attaches once it is done", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const sessionId = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon(["--session-restore-timeout-ms", "200"], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_INIT_DELAY_MS: "1000" } });
    const slow = await d.json("POST", `/session/${sessionId}/resume`, {});
    expect(slow.status).toBe(504);
    expect(slow.headers.get("retry-after")).toBe("5");
    expect(slow.body).toMatchObject({ code: "session_restore_timeout", errorKind: "restore_timeout", retryable: true, sessionId, action: "resume", timeoutMs: 200 });
    const retried = await until(
      async () => {
        const reply = await d.json("POST", `/session/${sessionId}/resume`, {});
        return reply.status === 200 ? reply : null;
      },
      10_000,
      "the retried resume",
    );
    expect(retried.body).toMatchObject({ sessionId, attached: true });
    // The retries joined the restore that was still running: the agent was asked once.
    expect(await d.sentToAgent("session/resume", sessionId)).toHaveLength(1);
  });

  test("the restore goes through the method the agent offers; an agent offering neither gets a seeded fresh session", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const sessionId = await closedSession(home.path, ws.path);
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "load" } });
      const resume = await d.json("POST", `/session/${sessionId}/resume`, {});
      expect(resume.status).toBe(200);
      expect(resume.body).toMatchObject({ restoredBy: "session/load" });
      expect(resume.body.compactedReplay).toBeUndefined();
      expect(await d.sentToAgent("session/resume", sessionId)).toHaveLength(0);
      expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    }
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "resume" } });
      const load = await d.json("POST", `/session/${sessionId}/load`, {});
      expect(load.body).toMatchObject({ restoredBy: "session/resume" });
      expect(load.body.compactedReplay.length).toBeGreaterThan(0);
      expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    }
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "none" } });
    const none = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ sessionId, restoredBy: "seeded" });
    expect(await d.sentToAgent("session/new")).toHaveLength(1);
    // Its history is still there.
    expect((await d.json("GET", `/session/${sessionId}/transcript`)).body.events.length).toBeGreaterThan(0);
  });
});
