/**
 * What the built-in agent tells its model besides the conversation, and how it keeps the
 * conversation inside the context window: instruction files (user, then project) and the
 * environment in the system prompt, the project's withheld when untrusted, the reply language
 * (session and user setting), and a 500-turn session with a small window that compacts and keeps
 * going, as seen by the mock model.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockModel } from "../fixtures/mock-model.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { startAgent } from "./agent-client.ts";

type Sent = { messages: Array<{ role: string; content: unknown }> };
const systemOf = (request: unknown) => String((request as Sent).messages[0]!.content);
const KEY_ENV = { MOCK_KEY: "test-key" };
/** One mock provider, with a context window of `contextLimit` tokens. */
const provider = (contextLimit?: number) => (model: MockModel) => ({ model: { providers: [{ id: "mock", baseUrl: model.baseUrl, apiKeyEnv: "MOCK_KEY", ...(contextLimit ? { contextLimit } : {}), models: ["mock-model"] }] } });

describe("system prompt", () => {
  test("a trusted workspace: the user's file, then the project's, the environment; a changed file is read at the next turn", async () => {
    await using a = await startAgent({ trusted: true, hostSettings: provider(), homeFiles: { "GEMINI.md": "User rule.\n" }, extraEnv: KEY_ENV, files: { "AGENTS.md": "Project rule: say banana.\n", "CLAUDE.md": "Claude rule.\n" } });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hello");
    const first = systemOf(a.model.requests.at(-1));
    expect(first).toContain("Project rule: say banana.");
    expect(first.indexOf("User rule.")).toBeGreaterThan(0);
    expect(first.indexOf("User rule.")).toBeLessThan(first.indexOf("Project rule"));
    expect(first.indexOf(`## ${join(a.workspace, "AGENTS.md")} (project)`)).toBeLessThan(first.indexOf(`## ${join(a.workspace, "CLAUDE.md")} (project)`));
    expect(first).toMatch(/- OS: linux /);
    expect(first).toContain(`- Date: ${new Date().toDateString()}`);
    expect(first).toContain("- Git: not a git repository");
    const detail = await a.agent.request<{ usage: { memoryFiles: Array<{ path: string; scope: string }> } }>("svc/status/session/context_usage", { sessionId, detail: true });
    expect(detail.usage.memoryFiles.map((f) => f.scope)).toEqual(["global", "workspace", "workspace"]);
    writeFileSync(join(a.workspace, "AGENTS.md"), "Project rule: say cherry.\n");
    await a.turn(sessionId, "again");
    const second = systemOf(a.model.requests.at(-1));
    expect(second).toContain("say cherry");
    expect(second).not.toContain("say banana");
  });

  test("an untrusted workspace's files are not given to the model; the user's are", async () => {
    await using a = await startAgent({ trusted: false, hostSettings: provider(), homeFiles: { "AGENTS.md": "User rule.\n" }, extraEnv: KEY_ENV, files: { "AGENTS.md": "Project secret rule.\n" } });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hello");
    expect(systemOf(a.model.requests.at(-1))).not.toContain("Project secret rule.");
    expect(systemOf(a.model.requests.at(-1))).toContain("User rule.");
    expect(systemOf(a.model.requests.at(-1))).toContain("- Git: not read (the workspace is not trusted)");
  });

  test("the reply language: the user's setting, and a session's own, which wins", async () => {
    await using a = await startAgent({ trusted: true, hostSettings: provider(), homeFiles: { "language.json": JSON.stringify({ language: "de", outputLanguage: "German" }) }, extraEnv: KEY_ENV });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hello");
    expect(systemOf(a.model.requests.at(-1))).toContain("Always answer in German");
    expect(await a.agent.request("svc/control/session/language", { sessionId, language: "fr", syncOutputLanguage: true })).toEqual({ language: "fr", outputLanguage: "French", refreshed: true });
    await a.turn(sessionId, "bonjour");
    expect(systemOf(a.model.requests.at(-1))).toContain("Always answer in French");
    expect(systemOf(a.model.requests.at(-1))).not.toContain("German");
    await expect(a.agent.request("svc/control/session/language", { sessionId, language: "xx" })).rejects.toMatchObject({ code: -32602 });
    expect(await a.agent.request("svc/control/user/language", { language: "de", syncOutputLanguage: true })).toEqual({ language: "de", sessions: 0, failed: 0 });
  });
});

test("500 turns in a small context window: the history is compacted by a summary, announced, and every turn ends normally", async () => {
  // The mock refuses a request past 24,000 bytes: the 6000-token window at 4 bytes a token.
  await using a = await startAgent({ trusted: true, hostSettings: provider(6000), extraEnv: KEY_ENV, modelOptions: { contextBytes: 24_000 } });
  const { sessionId } = await a.newSession();
  for (let i = 0; i < 500; i++) {
    const response = await a.prompt(sessionId, `turn ${i}: ${"some words to fill the window ".repeat(4)}`);
    expect(response.stopReason).toBe("end_turn");
  }
  const notices = a.updatesOf(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text.startsWith("IMPORTANT: This conversation approached the input token limit for mock/mock-model."));
  expect(notices.length).toBeGreaterThan(3);
  expect(notices[0]).toMatchObject({ _meta: { compression: { isEstimated: true, summarized: true } } });
  const requests = a.model.requests as Sent[];
  // Summary requests ask for one; the turns after a compaction carry it at the head of the kept history.
  expect(requests.filter((r) => systemOf(r).startsWith("You compress the earlier part")).length).toBe(notices.length);
  const last = requests.at(-1)!;
  expect(JSON.stringify(last.messages[1])).toContain("[Summary of the earlier conversation");
  const usage = (await a.agent.request<{ usage: { compactions: number; totalTokens: number; breakdown: { thresholds: { hard: number } } } }>("svc/status/session/context_usage", { sessionId })).usage;
  expect(usage.compactions).toBe(notices.length);
  expect(usage.totalTokens).toBeLessThan(usage.breakdown.thresholds.hard);
}, 120_000);

test("a summary the model fails to make: the older messages are dropped with a note, and the session goes on", async () => {
  await using a = await startAgent({ trusted: true, hostSettings: provider(6000), extraEnv: KEY_ENV, modelOptions: { contextBytes: 24_000 } });
  const { sessionId } = await a.newSession();
  // The mock fails any request whose last user text says "please fail": this turn, and the summary
  // request whose transcript quotes it.
  await expect(a.prompt(sessionId, "please fail")).rejects.toBeDefined();
  let i = 0;
  while (a.updatesOf(sessionId).every((u) => !(u.sessionUpdate === "agent_message_chunk" && u._meta?.compression))) {
    expect((await a.prompt(sessionId, `turn ${i++}: ${"some words to fill the window ".repeat(4)}`)).stopReason).toBe("end_turn");
    expect(i).toBeLessThan(300);
  }
  const notice = a.updatesOf(sessionId).find((u) => u.sessionUpdate === "agent_message_chunk" && u._meta?.compression)!;
  expect(notice._meta).toMatchObject({ compression: { summarized: false } });
  expect(JSON.stringify((a.model.requests.at(-1) as Sent).messages[1])).toMatch(/earlier messages were dropped to stay within the context window; their summary could not be made/);
  expect((await a.prompt(sessionId, "still here?")).stopReason).toBe("end_turn");
});

test("the git summary: branch and counts, from the workspace's repository", async () => {
  await using ws = tempDir("m-git-");
  expect(Bun.spawnSync(["git", "init", "-q", "-b", "trunk", ws.path]).exitCode).toBe(0);
  writeFileSync(join(ws.path, "new.txt"), "x\n");
  await using a = await startAgent({ trusted: true, workspace: ws.path, hostSettings: provider(), extraEnv: KEY_ENV });
  const { sessionId } = await a.newSession();
  await a.turn(sessionId, "hello");
  expect(systemOf(a.model.requests.at(-1))).toContain("- Git: branch trunk; 0 staged, 0 unstaged, 1 untracked");
});
