/**
 * The built-in agent loads only what it uses (issue 23): after `initialize` and `session/new` with
 * no MCP servers it has loaded neither the ACP SDK (nor zod, its schemas' library) nor the AI SDK,
 * the MCP SDK, its tools (the shell runner and workspace file access included) or its model code; a prompt loads the SDK and the one provider its model
 * needs, and still no MCP client. A list, read from Bun's module registry of a source run (a
 * preload writes it as the agent exits), not a time.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { rawAgent, type RawAgent } from "./raw-agent.ts";

const PRELOAD = join(REPO_ROOT, "test", "fixtures", "module-list-preload.ts");

/** The modules the agent had loaded when it exited, after `steps`: packages by name, repo files by path from the repo root. */
async function modulesAfter(steps: (a: RawAgent) => Promise<void>): Promise<string[]> {
  await using out = tempDir("svc-lean-");
  const file = join(out.path, "modules.json");
  {
    await using a = await rawAgent({ bunArgs: ["--preload", PRELOAD], extraEnv: { SVC_TEST_MODULES_OUT: file } });
    await steps(a);
    expect(await a.close()).toBe(0);
  }
  const loaded = JSON.parse(readFileSync(file, "utf8")) as string[];
  return [...new Set(loaded.map((path) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? path.replace(`${REPO_ROOT}/`, "")))];
}

const handshake = async (a: RawAgent) => {
  expect((await a.request(1, "initialize", { protocolVersion: 1, clientCapabilities: {} })).result).toBeDefined();
  expect((await a.request(2, "session/new", { cwd: a.workspace, mcpServers: [] })).result).toBeDefined();
};

/** What an unprompted agent must not have loaded. */
const PROMPT_ONLY = ["@agentclientprotocol/sdk", "zod", "@ai-sdk/provider", "@ai-sdk/provider-utils", "@ai-sdk/openai-compatible", "@modelcontextprotocol/sdk", "src/builtin-agent/agent-app.ts", "src/builtin-agent/turn.ts", "src/workspace/workspace-files.ts"];

test("after initialize and session/new the agent has loaded no SDK, no tool and no model code", async () => {
  const modules = await modulesAfter(handshake);
  // The list is the agent's: its front and core are in it.
  expect(modules).toContain("src/builtin-agent/acp-front.ts");
  expect(modules).toContain("src/builtin-agent/agent-core.ts");
  expect(modules.filter((m) => PROMPT_ONLY.includes(m) || m.startsWith("@ai-sdk/") || /^src\/builtin-agent\/(tools|mcp|model)\//.test(m))).toEqual([]);
});

test("a prompt loads the ACP SDK and its model's provider, and no other provider nor the MCP client", async () => {
  const modules = await modulesAfter(async (a) => {
    await handshake(a);
    const sessionId = ((a.messages.find((m) => m.id === 2)!.result as Record<string, unknown>).sessionId) as string;
    expect((await a.request(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] })).result).toMatchObject({ stopReason: "end_turn" });
  });
  expect(modules).toContain("@agentclientprotocol/sdk");
  expect(modules).toContain("@ai-sdk/openai-compatible");
  expect(modules.filter((m) => m === "@ai-sdk/anthropic" || m === "@ai-sdk/google" || m === "@modelcontextprotocol/sdk")).toEqual([]);
});
