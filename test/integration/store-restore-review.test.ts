/**
 * Restore findings of the persistence review (break5): a restored session keeps its creation time;
 * an agent that no longer knows the session falls back to a seeded one; the load's replay says
 * which epoch each item belongs to; delete/archive and restores do not undo each other; a restore
 * past its deadline does not leave an unreachable session holding the child.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

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
});
