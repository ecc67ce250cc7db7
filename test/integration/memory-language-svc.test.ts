/**
 * Memory and language through the daemon with the built-in agent and the mock model: a memory file
 * written through the API is in the next turn's system prompt; a session's language and the user's
 * (`POST /language`) reach the model as the reply language, with the reference's answers and
 * `language_changed` events; context-usage counts the instruction files.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "memory-language-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
type Sent = { messages: Array<{ role: string; content: unknown }> };

test("built-in agent: a memory written through the API and the languages set through it reach the model", async () => {
  await using model = startMockModel();
  await using home = tempDir("svc-memory-home-");
  await using ws = tempDir("svc-memory-ws-");
  await Bun.write(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, model: { providers: [{ id: "mock", baseUrl: model.baseUrl, apiKeyEnv: "MOCK_KEY", models: ["mock-model"] }] } }));
  await using d = await startDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, MOCK_KEY: "test-key" } });
  const call = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);

  expect(await call("POST", "/workspace/memory", { scope: "workspace", mode: "replace", content: "Rule: always mention kiwi.\n" })).toMatchObject({ status: 200, body: { ok: true, changed: true } });
  const created = await call("POST", "/session", {});
  expect(created.status).toBe(200);
  const sessionId = created.body.sessionId as string;
  await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
  const turn = async (text: string) => {
    const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
    expect(admitted.status).toBe(202);
    await events.waitFor("turn_complete", (f: { data: { promptId?: string } }) => f.data.promptId === admitted.body.promptId, 15_000);
    return String((model.requests.at(-1) as Sent).messages[0]!.content);
  };

  const first = await turn("hello");
  expect(first).toContain("Rule: always mention kiwi.");
  expect(first).toContain(`## ${join(d.workspace, "AGENTS.md")} (project)`);

  const appended = await call("POST", "/workspace/memory", { scope: "global", content: "- user note" });
  expect(appended.status).toBe(200);
  expect((await events.waitFor("memory_changed", undefined, 5000)).data).toEqual({ scope: "global", filePath: join(home.path, "AGENTS.md"), mode: "append", bytesWritten: appended.body.bytesWritten });
  const withUser = await turn("and now");
  expect(withUser.indexOf("- user note")).toBeGreaterThan(0);
  expect(withUser.indexOf("- user note")).toBeLessThan(withUser.indexOf("Rule: always mention kiwi."));

  const usage = await call("GET", `/session/${sessionId}/context-usage`);
  expect(usage.status).toBe(200);
  // The mock counts every request as 10 tokens in, 5 out: the truth the route reports.
  expect(usage.body.usage).toMatchObject({ totalTokens: 15, isEstimated: false, compactions: 0 });

  const set = await call("POST", `/session/${sessionId}/language`, { language: "ja", syncOutputLanguage: true });
  expect(set).toMatchObject({ status: 200, body: { language: "ja", outputLanguage: "Japanese", refreshed: true } });
  expect((await events.waitFor("language_changed", undefined, 5000)).data).toEqual({ sessionId, language: "ja", outputLanguage: "Japanese", refreshed: true });
  expect(await turn("konnichiwa")).toContain("Always answer in Japanese");

  const bad = await call("POST", "/language", { language: "klingon" });
  expect(bad).toMatchObject({ status: 400, body: { code: "invalid_language" } });
  expect(bad.body.allowed).toContain("auto");
  expect((await call("POST", "/language", { language: "fr", syncOutputLanguage: "yes" })).body.code).toBe("invalid_sync_flag");

  const user = await call("POST", "/language", { language: "fr", syncOutputLanguage: true });
  // The live agent took it; its one session keeps its own language.
  expect(user).toMatchObject({ status: 200, body: { language: "fr", outputLanguage: "French", refresh: { runtimes: 1, sessions: 0, failed: 0 } } });
  expect(JSON.parse(readFileSync(join(home.path, "language.json"), "utf8"))).toEqual({ language: "fr", outputLanguage: "French" });
  expect((await events.waitFor("language_changed", (f: { data: { userLevel?: boolean } }) => f.data.userLevel === true, 5000)).data).toEqual({ language: "fr", outputLanguage: "French", userLevel: true });
  const features = (await call("GET", "/capabilities")).body.features;
  for (const tag of ["workspace_memory", "session_language", "user_language_sync"]) expect(features).toContain(tag);

  // A new session has no language of its own: it follows the user's.
  const other = (await call("POST", "/session", { sessionScope: "thread" })).body.sessionId as string;
  const admitted = await call("POST", `/session/${other}/prompt`, { prompt: [{ type: "text", text: "salut" }] });
  expect(admitted.status).toBe(202);
  await using otherEvents = await openSse(`${d.url}/session/${other}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
  await otherEvents.waitFor("turn_complete", undefined, 15_000);
  expect(String((model.requests.at(-1) as Sent).messages[0]!.content)).toContain("Always answer in French");
});
