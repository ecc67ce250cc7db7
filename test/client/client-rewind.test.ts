/**
 * The client SDK's checkpoint and rewind calls against a fake-agent daemon (generic profile: it
 * cannot cut its conversation). Every response goes through the contract check.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "p-rewind-client-token-0123456789";

test("snapshots, a refused conversation rewind, a conflict naming the file, then a forced files rewind", async () => {
  await using ws = tempDir("p-rewind-ws-");
  await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_SERVER_TOKEN: TOKEN } });
  const client = createClient({ baseUrl: d.url, token: TOKEN, fetch: contractFetch });
  const { sessionId } = await client.createSession({ sessionScope: "thread" });
  const { promptId } = await client.prompt(sessionId, "@checkpoint-write notes.txt changed");
  const turns = await until(async () => {
    const listed = await client.rewindSnapshots(sessionId);
    return listed[0]?.files.length === 1 ? listed : null;
  }, 10_000, "the turn's snapshot");
  expect(turns).toMatchObject([{ promptId, turnIndex: 0, diffStats: { filesChanged: 1 }, files: [{ path: "notes.txt", change: "created", source: "tool", restorable: true }] }]);

  // The snapshot lists the file while the turn may still be ending: a busy session answers 409 session_busy (retryable).
  const unsupported = await until(async () => {
    const answer = await client.rewind(sessionId, promptId).catch((e: unknown) => e);
    return answer instanceof DaemonApiError && answer.code === "session_busy" ? null : answer;
  }, 10_000, "the turn to end");
  expect(unsupported).toBeInstanceOf(DaemonApiError);
  expect((unsupported as DaemonApiError).status).toBe(501);

  writeFileSync(join(ws.path, "notes.txt"), "by hand");
  const conflict = await client.rewind(sessionId, promptId, { conversation: false }).catch((e: unknown) => e);
  expect((conflict as DaemonApiError).status).toBe(409);
  expect((conflict as DaemonApiError).code).toBe("rewind_conflict");
  expect((conflict as DaemonApiError).body?.files).toEqual(["notes.txt"]);
  expect(readFileSync(join(ws.path, "notes.txt"), "utf8")).toBe("by hand");

  const done = await client.rewind(sessionId, promptId, { conversation: false, force: true });
  expect(done).toEqual({ rewound: true, promptId, targetTurnIndex: 0, filesChanged: ["notes.txt"], filesFailed: [], conversationRewound: false });
  expect(() => readFileSync(join(ws.path, "notes.txt"))).toThrow();
  expect(await client.rewindSnapshots(sessionId)).toEqual([{ ...turns[0]!, files: [], diffStats: { filesChanged: 0 } }]);
});
