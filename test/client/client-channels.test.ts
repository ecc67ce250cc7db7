/**
 * The client SDK's channel webhook, worktree-reset and workflow-action calls against a real daemon
 * (fake agent child), every response through the contract check.
 */
import { expect, test } from "bun:test";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon, type DaemonSettingsDoc } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "client-channels-token";
const SECRET = "client-channels-secret";
const EVENT = { eventType: "pipeline.failed", targetRef: "main", title: "Build broke" };

async function failure(p: Promise<unknown>): Promise<DaemonApiError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(DaemonApiError);
    return error as DaemonApiError;
  }
  throw new Error("expected the call to fail");
}

test("sendWebhook queues an event with the source's secret, a resend of its delivery is a duplicate, a wrong secret fails", async () => {
  await using ws = tempDir("q-sdk-ws-");
  let sessionId: string;
  {
    await using first = await fakeAgentDaemon(["--token", TOKEN], { workspace: ws.path });
    sessionId = (await createClient({ baseUrl: first.url, token: TOKEN, fetch: contractFetch }).createSession({ sessionScope: "thread" })).sessionId;
  }
  const settings = { channels: { ci: { webhooks: { sources: { gitlab: { secret: SECRET, targets: { main: { sessionId } } } } } } } } as DaemonSettingsDoc;
  await using d = await fakeAgentDaemon(["--token", TOKEN], { workspace: ws.path, settings });
  const c = createClient({ baseUrl: d.url, token: TOKEN, fetch: contractFetch });
  await c.loadSession(sessionId);
  const sender = createClient({ baseUrl: d.url, fetch: contractFetch }); // no bearer: the secret is its credential
  expect(await sender.sendWebhook("ci", "gitlab", EVENT, { secret: SECRET, deliveryId: "sdk-1" })).toEqual({ accepted: true, sessionId, promptId: expect.any(String) });
  expect(await sender.sendWebhook("ci", "gitlab", EVENT, { secret: SECRET, deliveryId: "sdk-1" })).toEqual({ accepted: false, duplicate: true, deliveryId: "sdk-1" });
  const wrong = await failure(sender.sendWebhook("ci", "gitlab", EVENT, { secret: "nope" }));
  expect([wrong.status, wrong.message]).toEqual([401, "Invalid webhook secret"]);
});

test("worktreeReset and workflowAction answer what this daemon cannot do", async () => {
  await using d = await fakeAgentDaemon(["--token", TOKEN]);
  const c = createClient({ baseUrl: d.url, token: TOKEN, fetch: contractFetch });
  const { sessionId } = await c.createSession({ sessionScope: "thread" });
  expect((await failure(c.worktreeReset(sessionId))).code).toBe("worktree_reset_unsupported");
  const unsupported = await failure(c.workflowAction(sessionId, "task-1", "retry"));
  expect([unsupported.status, unsupported.code]).toEqual([501, "agent_unsupported"]);
});
