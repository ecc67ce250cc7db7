/**
 * Recap, generation and automatic titles through the built-in agent's model
 * (`svc/control/session/generate`), end to end against the mock model: the texts come from the
 * model and say so, a title is stripped of controls and bidi characters and bounded, a failed
 * request falls back to the local text, and none of it enters the agent's conversation.
 */
import { expect, test } from "bun:test";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const userTexts = (request: unknown) =>
  JSON.stringify(((request as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role !== "system"));

test("the built-in agent's model writes the title, the recap and a free generation, outside the conversation", async () => {
  await using model = startMockModel();
  await using ws = tempDir("svc-gen-ws-");
  await using home = tempDir("svc-home-");
  await using d = await startDaemon([], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "k", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" } });
  const sessionId = (await jsonRequest(d.url, "POST", "/session", {})).body.sessionId as string;
  await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
  model.enqueue({ kind: "text", text: "the answer" }, { kind: "text", text: '"Parser\u202e refactor plan"\nsecond line' });
  const first = (await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "Refactor the parser" }] })).body.promptId;
  await events.waitFor("turn_complete", (f) => f.data.promptId === first, 15_000);
  const titled = await events.waitFor("session_metadata_updated", undefined, 15_000);
  expect(titled.data).toEqual({ sessionId, displayName: "Parser refactor plan", titleSource: "auto" });
  expect(model.requests).toHaveLength(2);
  expect(userTexts(model.requests[1])).toContain("Refactor the parser");

  model.enqueue({ kind: "text", text: "You are refactoring the parser." });
  const recap = await jsonRequest(d.url, "POST", `/session/${sessionId}/recap`, {});
  expect(recap.body).toEqual({ sessionId, recap: "You are refactoring the parser.", source: "model", model: expect.any(String) });

  model.enqueue({ kind: "text", text: "hello back" });
  const res = await fetch(`${d.url}/session/${sessionId}/generate`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ prompt: "Say hello" }) });
  const stream = await res.text();
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  expect(stream).toContain('"type":"delta","seq":0,"text":"hello back"');
  expect(stream).toContain('"type":"done"');
  expect(userTexts(model.requests[3])).toContain("Say hello");

  // A failing model: the recap is the daemon's own, and says why.
  model.enqueue({ kind: "status", status: 500, message: "down" }, { kind: "status", status: 500, message: "down" }, { kind: "status", status: 500, message: "down" }, { kind: "status", status: 500, message: "down" });
  const fallback = await jsonRequest(d.url, "POST", `/session/${sessionId}/recap`, {});
  expect(fallback.body).toMatchObject({ source: "local", reason: "model_failed" });
  expect(fallback.body.recap).toContain("Refactor the parser");

  // The next turn's conversation holds none of it.
  const before = model.requests.length;
  model.enqueue({ kind: "text", text: "ok" });
  const second = (await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "next" }] })).body.promptId;
  await events.waitFor("turn_complete", (f) => f.data.promptId === second, 15_000);
  await until(() => model.requests.length > before, 5000, "the turn's request");
  const conversation = userTexts(model.requests[model.requests.length - 1]);
  expect(conversation).toContain("Refactor the parser");
  expect(conversation).not.toContain("Write the recap");
  expect(conversation).not.toContain("Say hello");
  expect(conversation).not.toContain("Write the title");
});
