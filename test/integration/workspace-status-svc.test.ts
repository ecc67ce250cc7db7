/**
 * The status routes with the built-in agent (`svc --acp`, profile `svc`): every workspace section
 * and session view comes from its `svc/status/*` methods, merged and sanitized, with no `unknown`
 * cell and no 501; no payload carries a secret planted in the environment or the host settings
 * (MCP args and env, a provider's base address and key variable).
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const MARK = "PLANTED";
const SETTINGS = {
  mcpServers: {
    leaky: { command: "/bin/false", args: [`--token=${MARK}-arg`], env: { LEAKY_TOKEN: `${MARK}-mcp-env` } },
    remote: { url: `https://${MARK}.mcp.example/sse` },
  },
  model: { providers: [{ id: "corp", baseUrl: `https://${MARK}.corp.example/v1`, apiKeyEnv: "CORP_API_KEY", models: ["m1"] }] },
};
const ENV = { CORP_API_KEY: `sk-${MARK}-corp-0123456789`, OPENAI_API_KEY: `sk-proj-${MARK}-openai-0123456789` };
const FORBIDDEN = [MARK, "CORP_API_KEY", "corp.example", "LEAKY_TOKEN", "/bin/false", "installedPath", "baseUrl", "envKey"];

test("built-in agent: every section and session view comes through svc/status, nothing secret does", async () => {
  await using home = tempDir("svc-home-");
  await using ws = tempDir("svc-ws-");
  writeFileSync(join(home.path, "settings.json"), JSON.stringify(SETTINGS));
  mkdirSync(join(ws.path, ".svc"));
  await using d = await startDaemon([], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, ...ENV } });
  const created = await jsonRequest(d.url, "POST", "/session", {});
  expect(created.status).toBe(200);
  const sessionId = created.body.sessionId as string;

  const payloads: unknown[] = [];
  const get = async (path: string) => {
    const reply = await jsonRequest(d.url, "GET", path);
    payloads.push(reply.body);
    return reply;
  };

  const preflight = await get("/workspace/preflight");
  expect(preflight.status).toBe(200);
  expect(preflight.body.initialized).toBe(true);
  const acp = new Map<string, any>(preflight.body.cells.filter((c: { locality: string }) => c.locality === "acp").map((c: { kind: string }) => [c.kind, c]));
  expect(acp.get("auth")).toMatchObject({ status: "ok", detail: { modelId: "corp/m1" } });
  expect(acp.get("tool_registry").status).toBe("ok");
  expect(acp.get("mcp_discovery").status).toBe("not_started");

  const tools = await get("/workspace/tools");
  expect(tools.status).toBe(200);
  expect(tools.body).toMatchObject({ initialized: true, acpChannelLive: true });
  expect(tools.body.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["read_file", "write_file", "run_shell_command"]));

  const sections: Record<string, any> = {};
  for (const section of ["mcp", "skills", "providers"]) {
    const reply = await get(`/workspace/${section}`);
    expect(reply.status).toBe(200);
    expect(reply.body.initialized).toBe(true);
    expect(reply.body.errors).toBeUndefined();
    sections[section] = reply.body;
  }
  expect(sections.mcp.servers.map((s: { name: string }) => s.name).sort()).toEqual(["leaky", "remote"]);
  expect(sections.providers.current).toEqual({ authType: expect.any(String), modelId: "corp/m1" });
  expect(sections.providers.providers.flatMap((p: { models: { modelId: string }[] }) => p.models.map((m) => m.modelId))).toContain("corp/m1");
  expect(sections.skills.skills).toEqual([]);
  for (const view of ["context-usage", "tasks", "stats", "lsp", "resources"]) {
    const reply = await get(`/session/${sessionId}/${view}`);
    expect({ view, status: reply.status, sessionId: reply.body.sessionId }).toEqual({ view, status: 200, sessionId });
  }
  for (const payload of payloads) {
    const text = JSON.stringify(payload);
    for (const needle of FORBIDDEN) expect({ needle, found: text.includes(needle) ? text : false }).toEqual({ needle, found: false });
  }
});

test("built-in agent: a tool toggled through the daemon is off at once in its tool list, and written to the workspace settings", async () => {
  await using home = tempDir("svc-home-");
  await using ws = tempDir("svc-ws-");
  const auth = { Authorization: "Bearer toggle-token" };
  await using d = await startDaemon(["--token", "toggle-token", "--trust-workspace"], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, ...ENV } });
  expect((await jsonRequest(d.url, "POST", "/session", {}, auth)).status).toBe(200);
  const enabled = async () => {
    const reply = await jsonRequest(d.url, "GET", "/workspace/tools", undefined, auth);
    return Object.fromEntries(reply.body.tools.map((t: { name: string; enabled: boolean }) => [t.name, t.enabled]));
  };
  expect((await enabled()).run_shell_command).toBe(true);

  const toggled = await jsonRequest(d.url, "POST", "/workspace/tools/run_shell_command/enable", { enabled: false }, auth);
  expect(toggled.status).toBe(200);
  expect(toggled.body).toEqual({ toolName: "run_shell_command", enabled: false });
  expect((await enabled()).run_shell_command).toBe(false);
  const settings = JSON.parse(await Bun.file(join(ws.path, ".svc", "settings.json")).text());
  expect(settings.tools.disabled).toEqual(["run_shell_command"]);
});
