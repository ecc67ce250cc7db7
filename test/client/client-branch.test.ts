/**
 * The client SDK's branch call against a fake-agent daemon: the branch, its parent link in the
 * list, and the daemon's refusals as `DaemonApiError`s. Every response goes through the contract
 * check.
 */
import { expect, test } from "bun:test";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

test("branchSession makes a linked branch; a turn the session lacks is a 400 branch_point_invalid", async () => {
  await using home = tempDir("svc-home-");
  await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
  const client = createClient({ baseUrl: d.url, fetch: contractFetch });
  const parent = await client.createSession({ sessionScope: "thread" });
  const admitted = await client.prompt(parent.sessionId, "a first turn");
  await until(async () => (await client.listSessions()).sessions.find((s) => s.sessionId === parent.sessionId)?.hasActivePrompt === false && (await client.turnIndex(parent.sessionId)).totalTurns === 1, 5000, "the turn");

  const branch = await client.branchSession(parent.sessionId, { name: "try another way" });
  expect(branch).toMatchObject({ parentSessionId: parent.sessionId, parentPromptId: admitted.promptId, turnIndex: 0, displayName: "try another way", branchedBy: "seeded" });
  const row = (await client.listSessions()).sessions.find((s) => s.sessionId === branch.sessionId);
  expect(row).toMatchObject({ parentSessionId: parent.sessionId, parentPromptId: admitted.promptId });

  const refused = await client.branchSession(parent.sessionId, { turnIndex: 3 }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(DaemonApiError);
  expect((refused as DaemonApiError).status).toBe(400);
  expect((refused as DaemonApiError).code).toBe("branch_point_invalid");
});
