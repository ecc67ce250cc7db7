/**
 * Extensions through the daemon with the built-in agent and the mock model: an extension installed
 * from a local folder (a copy under the data dir, links and `.git` left out) brings a skill, an
 * instruction file and a working MCP server to the next turns; disabling it takes all three away;
 * uninstalling removes it. Long changes are operations (202, then polled), announced by
 * `extensions_changed`. A URL source, a
 * relative path and a missing consent are refused, and so is every change in an untrusted workspace.
 */
import { expect, test } from "bun:test";
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "extensions-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const MCP_SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
type Sent = { messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function?: { name?: string } }> };
const systemOf = (request: unknown) => String((request as Sent).messages[0]!.content);
const offered = (request: unknown) => ((request as Sent).tools ?? []).map((t) => t.function?.name);

function writeExtension(dir: string) {
  mkdirSync(join(dir, "skills", "lint"), { recursive: true });
  mkdirSync(join(dir, ".git"));
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, "qwen-extension.json"), JSON.stringify({ name: "kit", version: "1.2.0", description: "A test kit", contextFileName: "KIT.md", mcpServers: { tools: { command: process.execPath, args: [MCP_SERVER] } } }));
  writeFileSync(join(dir, "KIT.md"), "Kit rule: mention PELICAN.\n");
  writeFileSync(join(dir, "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint the code the kit's way\n---\nRun the linter and report OSPREY.\n");
  symlinkSync("/etc/hostname", join(dir, "outside-link"));
}

async function daemon(model: MockModel, home: string, ws: string, trusted: boolean) {
  writeFileSync(join(home, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, model: { providers: [{ id: "mock", baseUrl: model.baseUrl, apiKeyEnv: "MOCK_KEY", models: ["mock-model"] }] } }));
  const d = await startDaemon(["--token", TOKEN, ...(trusted ? ["--trust-workspace"] : [])], { workspace: ws, env: { PATH: process.env.PATH, SVC_HOME: home, MOCK_KEY: "test-key" } });
  const call = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);
  return { d, call };
}

test("built-in agent: an extension from a local folder brings a skill, an instruction file and an MCP server; disable and uninstall take them away", async () => {
  await using model = startMockModel();
  await using home = tempDir("k-ext-home-");
  await using ws = tempDir("k-ext-ws-");
  await using src = tempDir("k-ext-src-");
  writeExtension(src.path);
  const { d, call } = await daemon(model, home.path, ws.path, true);
  await using _d = d;
  const settle = async (answer: { status: number; body: { operationId?: string }; headers?: Headers }) => {
    expect(answer.status).toBe(202);
    const id = answer.body.operationId!;
    let op: { status: number; body: Record<string, unknown> } = { status: 0, body: {} };
    await until(async () => {
      op = await call("GET", `/workspace/extensions/operations/${id}`);
      return op.body.status === "succeeded" || op.body.status === "failed";
    }, 10_000);
    return op.body;
  };

  expect(await call("POST", "/workspace/extensions/install", { source: "https://github.com/acme/kit.git", consent: true })).toMatchObject({ status: 422, body: { code: "extension_source_unsupported" } });
  expect(await call("POST", "/workspace/extensions/install", { source: "kit", consent: true })).toMatchObject({ status: 400, body: { code: "invalid_extension_source" } });
  expect(await call("POST", "/workspace/extensions/install", { source: src.path })).toMatchObject({ status: 400, body: { code: "extension_consent_required" } });

  const installed = await settle(await call("POST", "/workspace/extensions/install", { source: src.path, consent: true }));
  expect(installed).toMatchObject({ operation: "install", status: "succeeded", result: { status: "installed", name: "kit", version: "1.2.0", skipped: 1 } });
  const copy = join(home.path, "extensions", "kit");
  expect(lstatSync(copy).isDirectory()).toBe(true);
  expect(existsSync(join(copy, "outside-link"))).toBe(false);
  expect(existsSync(join(copy, ".git"))).toBe(false);
  writeFileSync(join(src.path, "KIT.md"), "changed at the source\n");
  expect(readFileSync(join(copy, "KIT.md"), "utf8")).toBe("Kit rule: mention PELICAN.\n");

  const listed = await call("GET", "/workspace/extensions");
  expect(listed.body.extensions).toEqual([
    expect.objectContaining({
      kind: "extension",
      name: "kit",
      version: "1.2.0",
      isActive: true,
      installType: "local",
      capabilities: expect.objectContaining({ mcpServerCount: 1, skillCount: 1, contextFileCount: 1 }),
      details: expect.objectContaining({ mcpServers: ["tools"], skills: ["lint"], contextFiles: ["KIT.md"] }),
    }),
  ]);
  expect((await call("GET", "/workspace/extensions/operations")).body).toEqual({ v: 1, operations: [] });

  const sessionId = (await call("POST", "/session", {})).body.sessionId as string;
  expect((await call("POST", `/session/${sessionId}/approval-mode`, { mode: "yolo" })).status).toBe(200);
  await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
  const turn = async (text: string) => {
    const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
    expect(admitted.status).toBe(202);
    await events.waitFor("turn_complete", (f: { data: { promptId?: string } }) => f.data.promptId === admitted.body.promptId, 15_000);
  };
  model.enqueue({ kind: "tools", calls: [{ name: "skill", args: { skill: "kit:lint" } }, { name: "mcp__kit__tools__echo", args: { text: "from the kit" } }] }, { kind: "text", text: "done" });
  await turn("use the kit");
  const first = model.requests.at(-2)!;
  expect(systemOf(first)).toContain("- kit:lint: Lint the code the kit's way");
  expect(systemOf(first)).toContain("Kit rule: mention PELICAN.");
  expect(offered(first)).toContain("mcp__kit__tools__echo");
  const results = JSON.stringify((model.requests.at(-1) as Sent).messages.filter((m) => m.role === "tool").map((m) => m.content));
  expect(results).toContain("report OSPREY");
  expect(results).toContain("echo: from the kit");
  expect((await call("GET", "/workspace/skills")).body.skills).toContainEqual(expect.objectContaining({ name: "kit:lint", level: "extension", extensionName: "kit", status: "ok" }));

  expect(await settle(await call("POST", "/workspace/extensions/kit/disable", {}))).toMatchObject({ status: "succeeded", result: { status: "disabled", name: "kit", changed: true, refreshed: 1, failed: 0 } });
  expect((await call("GET", "/workspace/extensions")).body.extensions[0]).toMatchObject({ isActive: false });
  // The per-workspace view tells the same state (one for every workspace), not an empty list.
  const perWorkspace = (await call("GET", `/workspaces/${encodeURIComponent(d.workspace)}/extensions`)).body;
  expect(perWorkspace.extensions).toEqual([
    { extensionId: listed.body.extensions[0].id, name: "kit", version: "1.2.0", defaultActivation: "disabled", workspaceActivation: null, effectiveActivation: "disabled", activationSource: "default" },
  ]);
  expect((await events.waitFor("extensions_changed", (f: { data: { status?: string } }) => f.data.status === "disabled", 5000)).data).toEqual({ status: "disabled", name: "kit", refreshed: 1, failed: 0 });
  await turn("and without it");
  const after = model.requests.at(-1)!;
  expect(systemOf(after)).not.toContain("kit:lint");
  expect(systemOf(after)).not.toContain("PELICAN");
  expect(offered(after)).not.toContain("mcp__kit__tools__echo");

  // Enabled again while the agent runs: its MCP servers are reloaded with the extension's.
  expect(await settle(await call("POST", "/workspace/extensions/kit/enable", {}))).toMatchObject({ status: "succeeded", result: { status: "enabled", changed: true } });
  await turn("with it again");
  expect(offered(model.requests.at(-1))).toContain("mcp__kit__tools__echo");
  expect(await call("POST", "/workspace/extensions/nope/enable", {})).toMatchObject({ status: 404, body: { code: "extension_not_found" } });
  expect(await settle(await call("DELETE", "/workspace/extensions/kit"))).toMatchObject({ status: "succeeded", result: { status: "uninstalled", name: "kit" } });
  expect(existsSync(copy)).toBe(false);
  expect((await call("GET", "/workspace/extensions")).body.extensions).toEqual([]);
});

test("an untrusted workspace: extensions are listed, not changed", async () => {
  await using model = startMockModel();
  await using home = tempDir("k-ext-home-");
  await using ws = tempDir("k-ext-ws-");
  await using src = tempDir("k-ext-src-");
  writeExtension(src.path);
  const { d, call } = await daemon(model, home.path, ws.path, false);
  await using _d = d;
  expect(await call("POST", "/workspace/extensions/install", { source: src.path, consent: true })).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
  expect(existsSync(join(home.path, "extensions"))).toBe(false);
  expect((await call("GET", "/workspace/extensions")).body).toEqual({ v: 1, workspaceCwd: d.workspace, initialized: true, extensions: [] });
});
