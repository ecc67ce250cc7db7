/**
 * The client SDK's organization, recap, generation and turn-index calls against a fake-agent
 * daemon (so texts are the daemon's own, from the journal). Every response goes through the
 * contract check.
 */
import { expect, test } from "bun:test";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

test("groups, pins, the organized list, recap, a generated title and the turn index through the SDK", async () => {
  await using home = tempDir("svc-home-");
  await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
  const client = createClient({ baseUrl: d.url, fetch: contractFetch });
  const a = await client.createSession({ sessionScope: "thread" });
  const b = await client.createSession({ sessionScope: "thread" });

  const group = await client.createSessionGroup("Work", "green");
  expect((await client.updateSessionGroup(group.id, { name: "Job", order: 5 })).name).toBe("Job");
  expect((await client.sessionGroups()).groups.map((g) => g.name)).toEqual(["Job"]);
  expect(await client.organizeSession(a.sessionId, { isPinned: true })).toMatchObject({ isPinned: true });
  expect(await client.organizeSession(b.sessionId, { groupId: group.id }, { workspace: d.workspace })).toMatchObject({ groupId: group.id });
  const organized = await client.listSessions({ organized: true });
  expect(organized.sessions.map((s) => [s.sessionId, s.isPinned, s.groupId])).toEqual([
    [a.sessionId, true, null],
    [b.sessionId, false, group.id],
  ]);
  expect((await client.listSessions({ organized: true, group: group.id })).sessions.map((s) => s.sessionId)).toEqual([b.sessionId]);
  const missing = await client.organizeSession(a.sessionId, { groupId: "nope" }).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(DaemonApiError);
  expect((missing as DaemonApiError).status).toBe(404);
  expect(await client.deleteSessionGroup(group.id)).toBe(true);

  await client.setAutoTitle(b.sessionId, false);
  const admitted = await client.prompt(a.sessionId, "Tidy the changelog");
  await until(async () => (await client.turnIndex(a.sessionId)).totalTurns === 1 && (await client.recapSession(a.sessionId)).recap !== null, 5000, "the turn");
  const index = await client.turnIndex(a.sessionId);
  expect(index.turns[0]).toMatchObject({ promptId: admitted.promptId, label: "Tidy the changelog" });
  expect(await client.recapSession(a.sessionId)).toMatchObject({ source: "local", reason: "agent_cannot" });
  expect(await client.generate(a.sessionId, { kind: "title" })).toEqual({ text: "Tidy the changelog", model: "local", modelSource: "local" });
  const refused = await client.generate(a.sessionId, { prompt: "hi" }).catch((e: unknown) => e);
  expect((refused as DaemonApiError).status).toBe(501);
});
