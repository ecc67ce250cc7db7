/**
 * Side questions (`POST /session/:id/btw`) with the built-in agent, end to end against the mock
 * model: an answer arrives while a turn streams, the turn goes on to its end undisturbed, nothing
 * of the side question reaches the journal or the next turn's model request, and the bounds
 * answer with their codes.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const SLOW_TURN = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
const messagesOf = (request: unknown) => JSON.stringify((request as { messages?: unknown[] }).messages ?? []);

/** The built-in agent behind a daemon, on the mock model, without automatic titles (their request would take a queued reply). */
async function builtIn() {
  const model = startMockModel();
  const ws = tempDir("svc-btw-ws-");
  const home = tempDir("svc-home-");
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
  const d = await startDaemon([], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "k", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" } });
  return {
    model,
    d,
    async [Symbol.asyncDispose]() {
      await d[Symbol.asyncDispose]();
      await model[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
    },
  };
}

test("a side question is answered during a running turn, outside the conversation and the journal", async () => {
  await using f = await builtIn();
  const { model, d } = f;
  const sessionId = (await jsonRequest(d.url, "POST", "/session", {})).body.sessionId as string;
  await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });

  // A turn that streams for about three seconds.
  model.enqueue({ kind: "text", text: SLOW_TURN, chunkChars: 3, chunkDelayMs: 100 });
  const promptId = (await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "Refactor the parser module" }] })).body.promptId as string;
  await events.waitFor("session_update", (f) => (f.data as { update?: { sessionUpdate?: string } }).update?.sessionUpdate === "agent_message_chunk", 15_000);
  const framesBefore = events.frames.length;

  model.enqueue({ kind: "text", text: "You asked it to refactor the parser." });
  const asked = await jsonRequest(d.url, "POST", `/session/${sessionId}/btw`, { question: "  What did I ask for?  " });
  expect(asked.status).toBe(200);
  expect(asked.body).toEqual({ sessionId, answer: "You asked it to refactor the parser.", model: expect.any(String) });
  // Answered while the turn still runs.
  expect(events.frames.some((f) => f.event === "turn_complete")).toBe(false);
  const btwRequest = messagesOf(model.requests[1]);
  expect(btwRequest).toContain("What did I ask for?");
  expect(btwRequest).toContain("Refactor the parser module");

  // The turn ends with its whole answer; no frame the side question made is in the stream.
  const done = await events.waitFor("turn_complete", (f) => f.data.promptId === promptId, 15_000);
  const streamed = events.frames
    .filter((f) => f.event === "session_update" && (f.data as { update?: { sessionUpdate?: string } }).update?.sessionUpdate === "agent_message_chunk")
    .map((f) => ((f.data as { update: { content?: { text?: string } } }).update.content?.text ?? ""))
    .join("");
  expect(streamed).toBe(SLOW_TURN);
  expect(done.data.stopReason).toBe("end_turn");
  expect(JSON.stringify(events.frames.slice(framesBefore))).not.toContain("refactor the parser.");

  // The next turn's request holds none of it, nor does the journal.
  const before = model.requests.length;
  const second = (await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "please answer" }] })).body.promptId;
  await events.waitFor("turn_complete", (f) => f.data.promptId === second, 15_000);
  await until(() => model.requests.length > before, 5000, "the turn's request");
  const next = messagesOf(model.requests[model.requests.length - 1]);
  expect(next).toContain("Refactor the parser module");
  expect(next).not.toContain("What did I ask for?");
  expect(next).not.toContain("You asked it to refactor the parser.");
  const transcript = await jsonRequest(d.url, "GET", `/session/${sessionId}/transcript?limit=500`);
  expect(transcript.status).toBe(200);
  expect(JSON.stringify(transcript.body)).not.toContain("What did I ask for?");
  expect(JSON.stringify(transcript.body)).not.toContain("You asked it to refactor the parser.");
});

test("side question bounds: the question, one at a time per session, a missing session", async () => {
  await using f = await builtIn();
  const { model, d } = f;
  const sessionId = (await jsonRequest(d.url, "POST", "/session", {})).body.sessionId as string;
  const btw = (body: unknown) => jsonRequest(d.url, "POST", `/session/${sessionId}/btw`, body);

  for (const body of [{}, { question: "" }, { question: " \n\t " }, { question: 42 }, { question: "é".repeat(8193) }, "[1]"]) {
    const refused = await btw(body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("invalid_question");
  }
  expect(model.requests).toHaveLength(0);
  // 16 KiB of UTF-8 is within the bound.
  model.enqueue({ kind: "text", text: "fits" });
  expect((await btw({ question: "é".repeat(8192) })).body.answer).toBe("fits");

  const missing = await jsonRequest(d.url, "POST", "/session/no-such-session/btw", { question: "hello?" });
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe("session_not_found");

  // While one is answered slowly, a second in the same session is refused; then it is free again.
  model.enqueue({ kind: "text", text: "slow side answer", chunkChars: 1, chunkDelayMs: 100 });
  const first = btw({ question: "first" });
  await until(() => model.requests.length === 2, 5000, "the first side question's request");
  const second = await btw({ question: "second" });
  expect(second.status).toBe(409);
  expect(second.body.code).toBe("side_question_in_progress");
  expect(second.headers.get("retry-after")).toBe("1");
  expect((await first).body.answer).toBe("slow side answer");
  model.enqueue({ kind: "text", text: "third answer" });
  expect((await btw({ question: "third" })).body.answer).toBe("third answer");
});

test("a side question given up on ends its model request (the asker left, the session closed); a long answer is cut, saying so", async () => {
  await using f = await builtIn();
  const { model, d } = f;
  const open = async () => (await jsonRequest(d.url, "POST", "/session", { sessionScope: "thread" })).body.sessionId as string;
  const [first, second] = [await open(), await open()];

  // The asker goes away while the model still thinks: the model's stream is ended, not left running.
  model.enqueue({ kind: "hang", text: "thinking" });
  const asker = new AbortController();
  const left = fetch(`${d.url}/session/${first}/btw`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question: "still there?" }), signal: asker.signal }).catch(() => null);
  await until(() => model.hangingStreams() === 1, 10_000, "the side question's model request");
  asker.abort();
  await left;
  await until(() => model.hangingStreams() === 0, 10_000, "the abandoned side question's model request to end");

  // Its session closes while the model still thinks: 409, and the stream is ended too.
  model.enqueue({ kind: "hang", text: "thinking" });
  const closing = jsonRequest(d.url, "POST", `/session/${second}/btw`, { question: "and now?" });
  await until(() => model.hangingStreams() === 1, 10_000, "the second side question's model request");
  expect((await jsonRequest(d.url, "DELETE", `/session/${second}`)).status).toBeLessThan(300);
  expect((await closing).body.code).toBe("session_closed");
  await until(() => model.hangingStreams() === 0, 10_000, "the closed session's side question's model request to end");

  // An answer past the bound arrives cut, ending in "…", within the bound.
  model.enqueue({ kind: "text", text: "z".repeat(20_000) });
  const cut = await jsonRequest(d.url, "POST", `/session/${first}/btw`, { question: "say a lot" });
  expect(cut.status).toBe(200);
  const long = cut.body.answer as string;
  expect(long.endsWith("…")).toBe(true);
  expect(Buffer.byteLength(long)).toBeLessThanOrEqual(16 * 1024);
});
