/**
 * The client SDK's side question call against a fake-agent daemon with the qwen-code profile (its
 * own `qwen/control/session/btw`), and a generic one (501). Every response goes through the contract check.
 */
import { expect, test } from "bun:test";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

test("askSideQuestion answers through the session's agent, presenting the session's client id", async () => {
  await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code" } });
  const client = createClient({ baseUrl: d.url, fetch: contractFetch });
  const { sessionId } = await client.createSession();
  expect(await client.askSideQuestion(sessionId, "what changed?")).toEqual({ sessionId, answer: "btw: what changed?" });
  const refused = await client.askSideQuestion(sessionId, "  ").catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(DaemonApiError);
  expect((refused as DaemonApiError).code).toBe("invalid_question");
});

test("askSideQuestion with an agent that has no side-question path is a 501 DaemonApiError", async () => {
  await using d = await fakeAgentDaemon();
  const client = createClient({ baseUrl: d.url, fetch: contractFetch });
  const { sessionId } = await client.createSession();
  const refused = await client.askSideQuestion(sessionId, "what changed?").catch((e: unknown) => e);
  expect((refused as DaemonApiError).status).toBe(501);
  expect((refused as DaemonApiError).code).toBe("agent_control_unsupported");
});
