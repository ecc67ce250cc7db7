/**
 * Restore findings of the persistence review (break5): a restored session keeps its creation time;
 * an agent that no longer knows the session falls back to a seeded one; the load's replay says
 * which epoch each item belongs to; delete/archive and restores do not undo each other; a restore
 * past its deadline does not leave an unreachable session holding the child.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

type ReplayItem = { id?: number; type: string; _meta: { eventEpoch?: string } };

/** A session with one finished turn, closed on a daemon of `home`/`workspace`: its id and createdAt. */
async function closedSession(home: string, workspace: string, env: Record<string, string> = {}) {
  await using d = await fakeAgentDaemon([], { workspace, env: { SVC_HOME: home, ...env } });
  const created = await d.json("POST", "/session", { sessionScope: "thread" });
  const sessionId = created.body.sessionId as string;
  await using events = await d.events(sessionId);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say before the restart" }] });
  await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId);
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  return { sessionId, createdAt: created.body.createdAt as string };
}

describe("restore review findings", () => {
  test("a restored session keeps the catalog's createdAt, in the reply and in the list", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId, createdAt } = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path } });
    const resume = await d.json("POST", `/session/${sessionId}/resume`, {});
    expect(resume.status).toBe(200);
    expect(resume.body.createdAt).toBe(createdAt);
    const list = await d.json("GET", `/workspace/${encodeURIComponent(ws.path)}/sessions`);
    expect(list.body.sessions).toEqual([expect.objectContaining({ sessionId, live: true, createdAt })]);
  });

  test("an agent that no longer knows the session (-32002) gets a seeded fresh session instead of an error", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId } = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_STRICT_SESSIONS: "1" } });
    const load = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(load.status).toBe(200);
    expect(load.body).toMatchObject({ sessionId, attached: false, restoredBy: "seeded" });
    expect(await d.sentToAgent("session/load", sessionId)).toHaveLength(1);
    expect(await d.sentToAgent("session/new")).toHaveLength(1);
  });

  test("any other agent error on load is a 502 with a string code, and leaves nothing live", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId } = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_RESTORE_ERROR: "disk on fire" } });
    for (const action of ["load", "resume"]) {
      const reply = await d.json("POST", `/session/${sessionId}/${action}`, {});
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({ code: "agent_restore_failed", errorKind: "agent_error", sessionId, method: `session/${action}` });
      expect(reply.body.error).toContain("disk on fire");
    }
    expect(await d.sentToAgent("session/new")).toHaveLength(0);
    const list = await d.json("GET", `/workspace/${encodeURIComponent(ws.path)}/sessions`);
    expect(list.body.sessions).toEqual([expect.objectContaining({ sessionId, live: false })]);
  });

  test("a load's replay spans epochs: every item names its epoch, ids ascend within each, lastEventId counts in the reply's epoch", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId } = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path } });
    // A second epoch with a turn of its own, then closed again.
    const first = await d.json("POST", `/session/${sessionId}/load`, {});
    {
      await using events = await d.events(sessionId);
      const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say after the restart" }] }, { "X-Svc-Client-Id": first.body.clientId });
      await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId);
    }
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);

    const load = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(load.status).toBe(200);
    const replay = load.body.compactedReplay as ReplayItem[];
    const epochs = [...new Set(replay.map((e) => e._meta.eventEpoch))];
    expect(epochs.length).toBeGreaterThanOrEqual(2);
    expect(epochs).toContain(first.body.eventEpoch);
    for (const item of replay) expect(typeof item._meta.eventEpoch).toBe("string");
    for (const epoch of epochs) {
      const ids = replay.filter((e) => e._meta.eventEpoch === epoch).map((e) => e.id!);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Events the new epoch already holds are at most lastEventId.
    for (const item of replay.filter((e) => e._meta.eventEpoch === load.body.eventEpoch)) expect(item.id!).toBeLessThanOrEqual(load.body.lastEventId);
  });

  test("delete, archive and close while a restore is in flight are 409 restore_in_progress and change nothing; the restore then completes", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId } = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_INIT_DELAY_MS: "1500" } });
    const resume = d.json("POST", `/session/${sessionId}/resume`, {});
    await until(async () => (await d.agentPids()).length === 1, 5000, "the agent to start");
    for (const path of ["/sessions/delete", "/sessions/archive"]) {
      const reply = await d.json("POST", path, { sessionIds: [sessionId] });
      expect(reply.status).toBe(409);
      expect(reply.headers.get("retry-after")).toBe("5");
      expect(reply.body).toMatchObject({ code: "restore_in_progress", sessionIds: [sessionId], retryable: true });
    }
    const close = await d.json("DELETE", `/session/${sessionId}`);
    expect(close.status).toBe(409);
    expect(close.body).toMatchObject({ code: "restore_in_progress", sessionId });
    expect((await resume).status).toBe(200);
    // The row and its journal are intact, not archived, and the session is live.
    const info = await d.json("POST", "/sessions/catalog", { sessionIds: [sessionId] });
    expect(info.body.sessions).toEqual([expect.objectContaining({ sessionId, live: true, isArchived: false })]);
    expect((await d.json("GET", `/session/${sessionId}/transcript`)).body.events.length).toBeGreaterThan(0);
    // Once live, the bulk routes say so, as before.
    expect((await d.json("POST", "/sessions/delete", { sessionIds: [sessionId] })).body.results).toEqual([{ sessionId, outcome: "live" }]);
  });

  test("a restore that outlives its 504 and is never claimed is closed after the grace: the agent session is closed too", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId } = await closedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon(["--session-restore-timeout-ms", "200"], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_INIT_DELAY_MS: "800" } });
    const slow = await d.json("POST", `/session/${sessionId}/resume`, {});
    expect(slow.status).toBe(504);
    const listed = async () => (await d.json("GET", `/workspace/${encodeURIComponent(ws.path)}/sessions`)).body.sessions as { sessionId: string; live: boolean }[];
    await until(async () => (await d.sentToAgent("session/resume", sessionId)).length === 1, 10_000, "the late restore to reach the agent");
    await until(async () => (await listed()).some((s) => s.sessionId === sessionId && s.live), 10_000, "the late restore to complete");
    await until(async () => (await d.sentToAgent("session/close", sessionId)).length === 1, 30_000, "the unclaimed session to be closed on the agent");
    expect(await listed()).toEqual([expect.objectContaining({ sessionId, live: false })]);
  }, 40_000);
});
