/**
 * `POST /language` and `POST /session/:id/language` with an agent that has no language method (the
 * fake ACP agent): the user's setting is saved with no agent running, the request checks answer the
 * reference's codes, and a session's change is a truthful 501.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

test("the user's language is saved with no agent running; a session's is 501 for an agent without the method", async () => {
  await using home = tempDir("m-home-");
  await using d = await fakeAgentDaemon(["--trust-workspace"], { env: { SVC_HOME: home.path } });
  const file = join(home.path, "language.json");
  expect(await d.json("POST", "/language", { language: "de" })).toMatchObject({ status: 200, body: { language: "de", outputLanguage: null, refresh: { runtimes: 0, sessions: 0, failed: 0 } } });
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ language: "de", outputLanguage: null });
  expect(await d.json("POST", "/language", { language: "auto", syncOutputLanguage: true })).toMatchObject({ status: 200, body: { language: "auto", outputLanguage: "auto" } });
  // Without sync the saved reply language stays.
  await d.json("POST", "/language", { language: "ja" });
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ language: "ja", outputLanguage: "auto" });
  expect(await d.json("POST", "/language", {})).toMatchObject({ status: 400, body: { code: "invalid_language" } });
  expect(await d.json("POST", "/language", [1])).toMatchObject({ status: 400 });
  expect(await d.agentPids()).toEqual([]);

  expect(await d.json("POST", "/session/nope/language", { language: "fr" })).toMatchObject({ status: 404, body: { code: "session_not_found" } });
  const { sessionId } = await d.createSession();
  expect(await d.json("POST", `/session/${sessionId}/language`, { language: "xx" })).toMatchObject({ status: 400, body: { code: "invalid_language" } });
  expect(await d.json("POST", `/session/${sessionId}/language`, { language: "fr", syncOutputLanguage: true })).toMatchObject({ status: 501, body: { code: "agent_control_unsupported" } });
  // The live agent cannot take the user's language either: left out of the counts, not a failure.
  expect(await d.json("POST", "/language", { language: "fr" })).toMatchObject({ status: 200, body: { refresh: { runtimes: 0, sessions: 0, failed: 0 } } });
  expect(existsSync(file)).toBe(true);
});
