/**
 * Whole turns on a fake-agent daemon, for the history and persistence tests: a prompt run to its
 * `turn_complete`, and a session that ran one and was closed (so only the catalog lists it).
 */
import { expect } from "bun:test";
import type { FakeAgentDaemon } from "./fake-agent-daemon.ts";
import type { SseFrame } from "./sse-client.ts";

/** Prompts `text` on the session and waits for that prompt's `turn_complete`, which it returns. */
export async function runTurn(d: FakeAgentDaemon, sessionId: string, text: string, headers: Record<string, string> = {}): Promise<SseFrame> {
  await using events = await d.events(sessionId, headers);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] }, headers);
  expect(prompt.status).toBe(202);
  return await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 20_000);
}

/** Runs `text` on a new thread session, then closes it (the persisted session stays); returns its id. */
export async function closedSession(d: FakeAgentDaemon, text = "@say kept"): Promise<string> {
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  await runTurn(d, sessionId, text);
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  return sessionId;
}
