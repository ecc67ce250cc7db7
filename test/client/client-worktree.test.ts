/**
 * The client SDK's worktree calls against a real daemon (fake agent child) in a real repository,
 * every response through the contract check: a session created in a worktree, and its reset.
 */
import { expect, test } from "bun:test";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { initRepo } from "../helpers/git-repo.ts";
import { tempDir } from "../helpers/temp-dir.ts";

test("createSession with a worktree, then worktreeReset: the replacement works in the same checkout; the old session cannot be loaded", async () => {
  await using ws = tempDir("w-sdk-ws-");
  initRepo(ws.path, { "a.txt": "base\n" });
  await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  const c = createClient({ baseUrl: d.url, fetch: contractFetch });
  const created = await c.createSession({ worktree: { slug: "sdk" } });
  expect(created.worktree).toEqual({ slug: "sdk", path: `${ws.path}/.qwen/worktrees/sdk`, branch: "worktree-sdk" });
  expect(created.worktreeState).toBe("persisted-v1");
  const reset = await c.worktreeReset(created.sessionId);
  expect(reset.sessionId).not.toBe(created.sessionId);
  expect([reset.worktree, reset.currentCwd]).toEqual([created.worktree!, created.worktree!.path]);
  const refused = await c.loadSession(created.sessionId).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(DaemonApiError);
  expect((refused as DaemonApiError).code).toBe("worktree_session_superseded");
  const plain = await c.createSession({ sessionScope: "thread" });
  expect(((await c.worktreeReset(plain.sessionId).catch((e: unknown) => e)) as DaemonApiError).code).toBe("worktree_reset_unsupported");
});
