/**
 * `/workspace/agents` with an agent that has no generate method (the fake ACP agent): the listing
 * and the detail are read by the daemon with no agent running, in both forms; generate is a
 * truthful 501, and its request checks answer the reference's codes.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const TOKEN = "agents-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

test("agents are listed without an agent; generate is 501 for an agent without the method", async () => {
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
  mkdirSync(join(d.workspace, ".qwen/agents"), { recursive: true });
  writeFileSync(join(d.workspace, ".qwen/agents/doc.md"), "---\nname: doc-writer\ndescription: Writes docs\n---\nYou write docs.\n");
  const listed = await d.json("GET", "/workspace/agents", undefined, AUTH);
  expect(listed).toMatchObject({ status: 200, body: { v: 1, workspaceCwd: d.workspace } });
  expect(listed.body.agents.map((a: { name: string }) => a.name)).toEqual(["doc-writer", "general-purpose"]);
  expect(listed.body.errors).toBeUndefined();
  const q = `/workspaces/${encodeURIComponent(d.workspace)}/agents`;
  expect((await d.json("GET", q, undefined, AUTH)).body.agents).toEqual(listed.body.agents);
  expect(await d.json("GET", `${q}/doc-writer`, undefined, AUTH)).toMatchObject({ status: 200, body: { name: "doc-writer", level: "project", systemPrompt: "You write docs.", filePath: join(d.workspace, ".qwen/agents/doc.md") } });
  expect(await d.json("GET", `${q}/nobody`, undefined, AUTH)).toMatchObject({ status: 404, body: { code: "agent_not_found" } });
  expect(await d.json("GET", "/workspaces/%2Fnowhere/agents", undefined, AUTH)).toMatchObject({ status: 404 });
  expect(await d.agentPids()).toEqual([]);

  expect(await d.json("POST", "/workspace/agents/generate", { description: "   " }, AUTH)).toMatchObject({ status: 400, body: { code: "invalid_description" } });
  expect(await d.json("POST", "/workspace/agents/generate", {}, AUTH)).toMatchObject({ status: 400 });
  // Strict: a request without the token is refused before the agent is asked.
  expect((await d.json("POST", "/workspace/agents/generate", { description: "writes docs" })).status).toBe(401);
  expect(await d.json("POST", "/workspace/agents/generate", { description: "writes docs" }, AUTH)).toMatchObject({ status: 501, body: { code: "agent_control_unsupported" } });
});
