/**
 * The workspace status routes with a live agent child (spec "MCP snapshot", "Skills", "Providers",
 * "Preflight", "Workspace tools"): asked through the agent's profile, sanitized at the daemon.
 *
 * - qwen profile: the fake agent answers `qwen/status/workspace/*` in qwen 0.24.4's shapes, with
 *   secrets planted in every member that must not pass (and a secret value echoed in prose).
 * - generic profile: no status methods; providers come from the session's models, the rest is an
 *   `unknown` cell.
 * - an agent that fails, answers garbage or never answers: an `errors` cell, never a hang or a 500.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const MARK = "PLANTED";
const TOKEN = `token-${MARK}-0123456789`;
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const OPENAI_KEY = `sk-proj-${MARK}-openai-0123456789`;
const ENV = {
  FAKE_AGENT_NAME: "qwen-code",
  FAKE_AGENT_STATUS_SECRET: `${MARK}-agent-secret`,
  SVC_SERVER_TOKEN: TOKEN,
  OPENAI_API_KEY: OPENAI_KEY,
  ANTHROPIC_API_KEY: `sk-ant-${MARK}-anthropic`,
  DASHSCOPE_API_KEY: `sk-${MARK}-dashscope`,
  GITHUB_TOKEN: `ghp_${MARK}_github_token`,
};
/** Secret-bearing settings: the daemon must not reflect any of it into a status payload. */
const SETTINGS = {
  mcpServers: { leaky: { command: "/usr/bin/false", args: [`--token=${MARK}-settings`], env: { TOKEN: `${MARK}-settings-env` } } },
  model: { providers: [{ id: "p", baseUrl: `https://${MARK}.settings.example/v1`, apiKeyEnv: "OPENAI_API_KEY", models: [{ id: "m" }] }] },
};
/** What no status payload may carry, whatever its source. */
const FORBIDDEN = [MARK, "installedPath", "SKILL.md", "baseUrl", "envKey", "apiKey", "/home/user", "Bearer", "hooks", "clientSecret", "hasOAuthTokens", "service_account", "headers", "npx", "body"];

const ROUTES = ["/workspace/env", "/workspace/preflight", "/workspace/mcp", "/workspace/skills", "/workspace/providers", "/workspace/tools"];

async function statuses(d: FakeAgentDaemon, headers: Record<string, string> = {}): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (const path of ROUTES) {
    const reply = await d.json("GET", path, undefined, headers);
    expect(reply.status).toBe(200);
    out.set(path, reply.body);
  }
  return out;
}

function expectClean(payloads: Iterable<unknown>): void {
  for (const payload of payloads) {
    const text = JSON.stringify(payload);
    for (const needle of FORBIDDEN) expect({ needle, found: text.includes(needle) }).toEqual({ needle, found: false });
  }
}

describe("qwen profile", () => {
  test("every snapshot comes from the agent, sanitized: no secret of the environment, settings or answers", async () => {
    await using d = await fakeAgentDaemon([], { env: ENV, settings: SETTINGS as object });
    await d.createSession({}, AUTH);
    const bodies = await statuses(d, AUTH);
    expectClean(bodies.values());
    const head = { v: 1, workspaceCwd: d.workspace, initialized: true };
    expect(bodies.get("/workspace/skills")).toEqual({
      ...head,
      skills: [{ kind: "skill", status: "ok", name: "fake-skill", description: "A skill the fake agent reports (key [redacted])", level: "project", modelInvocable: true, argumentHint: "<file>" }],
    });
    expect(bodies.get("/workspace/providers")).toEqual({
      ...head,
      current: { authType: "openai", modelId: "qwen3-coder-plus(openai)" },
      providers: [
        {
          kind: "model_provider",
          status: "ok",
          authType: "openai",
          current: true,
          models: [
            { modelId: "qwen3-coder-plus(openai)", baseModelId: "qwen3-coder-plus", name: "Qwen3 Coder Plus", description: "Coding model", contextLimit: 1_000_000, isCurrent: true, isRuntime: false },
            { modelId: "qwen-plus(openai)", baseModelId: "qwen-plus", name: "Qwen Plus", description: null, contextLimit: 131_072, isCurrent: false, isRuntime: false },
          ],
        },
        {
          kind: "model_provider",
          status: "ok",
          authType: "qwen-oauth",
          current: false,
          models: [{ modelId: "coder-model(qwen-oauth)", baseModelId: "coder-model", name: "Coder", description: null, contextLimit: 131_072, isCurrent: false, isRuntime: true }],
        },
      ],
    });
    expect(bodies.get("/workspace/mcp")).toEqual({
      ...head,
      discoveryState: "completed",
      servers: [
        { kind: "mcp_server", status: "ok", name: "github", mcpStatus: "connected", transport: "stdio", disabled: false, description: "GitHub tools", configOrigin: "user_settings", source: "user", removable: true, resourceCount: 0, promptCount: 1 },
        { kind: "mcp_server", status: "disabled", name: "remote", mcpStatus: "disconnected", transport: "http", disabled: true, disabledReason: "config" },
      ],
      clientCount: 1,
      clientBudget: 4,
      budgetMode: "warn",
      budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", liveCount: 1, budget: 4, mode: "warn", refusedCount: 0 }],
    });
    expect(bodies.get("/workspace/tools")).toEqual({
      ...head,
      acpChannelLive: true,
      tools: [
        { name: "read_file", displayName: "ReadFile", description: "Reads a file", enabled: true },
        { name: "run_shell_command", displayName: "Shell", description: "Runs a shell command", enabled: false },
      ],
    });
    // The agent's preflight cells follow the daemon's, in its order, each marked `acp`.
    const preflight = bodies.get("/workspace/preflight");
    expect(preflight.initialized).toBe(true);
    expect(preflight.errors).toBeUndefined();
    const acp = preflight.cells.filter((c: { locality: string }) => c.locality === "acp");
    expect(acp).toEqual([
      { kind: "auth", locality: "acp", status: "ok", detail: { authType: "openai" } },
      { kind: "mcp_discovery", locality: "acp", status: "ok", detail: { servers: 1 } },
      { kind: "skills", locality: "acp", status: "warning", errorKind: "parse_error", error: "1 skill failed to parse", detail: {} },
      { kind: "providers", locality: "acp", status: "ok" },
      { kind: "tool_registry", locality: "acp", status: "ok" },
      { kind: "egress", locality: "acp", status: "not_started", hint: "egress probing not yet implemented" },
    ]);
    expect(preflight.cells.findIndex((c: { locality: string }) => c.locality === "acp")).toBe(preflight.cells.length - acp.length);
    // Each section was asked with the workspace as `cwd`.
    for (const section of ["mcp", "skills", "providers", "tools", "preflight"]) {
      expect((await d.sentToAgent(`qwen/status/workspace/${section}`)).map((e) => e.params)).toEqual([{ cwd: d.workspace }]);
    }
  });

  for (const fault of ["error", "garbage"]) {
    test(`an agent whose status methods ${fault === "error" ? "fail" : "answer garbage"} leaves a protocol_error cell in errors`, async () => {
      await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: fault } });
      await d.createSession({}, AUTH);
      const bodies = await statuses(d, AUTH);
      expectClean(bodies.values());
      for (const section of ["mcp", "skills", "providers", "tools", "preflight"]) {
        const body = bodies.get(`/workspace/${section}`);
        expect(body.initialized).toBe(true);
        expect(body.errors).toEqual([expect.objectContaining({ kind: section, status: "error", errorKind: "protocol_error" })]);
      }
      // The daemon's preflight cells stay; the agent's fall back to not_started.
      const preflight = bodies.get("/workspace/preflight");
      expect(preflight.cells.some((c: { kind: string; status: string }) => c.kind === "workspace_dir" && c.status === "ok")).toBe(true);
      expect(preflight.cells.filter((c: { locality: string }) => c.locality === "acp").every((c: { status: string }) => c.status === "not_started")).toBe(true);
    });
  }

  test("an answer nested beyond the sanitizer's bound is a protocol_error cell, never a 500 (review finding 3)", async () => {
    await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: "deep" } });
    await d.createSession({}, AUTH);
    const bodies = await statuses(d, AUTH);
    for (const section of ["mcp", "skills", "providers", "tools", "preflight"]) {
      const body = bodies.get(`/workspace/${section}`);
      expect(body.errors).toEqual([expect.objectContaining({ kind: section, status: "error", errorKind: "protocol_error" })]);
    }
    expect(bodies.get("/workspace/skills").skills).toEqual([]);
  });

  test("concurrent reads of a section share one agent request in flight (review finding 9)", async () => {
    await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: "hang" } });
    await d.createSession({}, AUTH);
    const replies = await Promise.all([
      ...Array.from({ length: 6 }, () => d.json("GET", "/workspace/tools", undefined, AUTH)),
      d.json("GET", "/daemon/status?detail=full", undefined, AUTH),
    ]);
    for (const reply of replies) expect(reply.status).toBe(200);
    for (const reply of replies.slice(0, 6)) expect(reply.body.errors).toEqual([expect.objectContaining({ kind: "tools", errorKind: "init_timeout" })]);
    expect(await d.sentToAgent("qwen/status/workspace/tools")).toHaveLength(1);
    // Once settled, the next read asks again.
    await d.json("GET", "/workspace/tools", undefined, AUTH);
    expect(await d.sentToAgent("qwen/status/workspace/tools")).toHaveLength(2);
  }, 30_000);

  test("an agent that says its part is not initialized yet is reported so", async () => {
    await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: "uninitialized" } });
    await d.createSession({}, AUTH);
    const bodies = await statuses(d, AUTH);
    for (const section of ["mcp", "skills", "providers", "tools"]) expect(bodies.get(`/workspace/${section}`).initialized).toBe(false);
    expect(bodies.get("/workspace/env").initialized).toBe(true);
  });

  test("an agent that never answers gives init_timeout cells within the status budget, all sections at once", async () => {
    await using d = await fakeAgentDaemon([], { env: { ...ENV, FAKE_AGENT_STATUS_FAULT: "hang" } });
    await d.createSession({}, AUTH);
    const replies = await Promise.all(["mcp", "skills", "providers", "tools", "preflight"].map((s) => d.json("GET", `/workspace/${s}`, undefined, AUTH)));
    for (const [i, section] of ["mcp", "skills", "providers", "tools", "preflight"].entries()) {
      expect(replies[i]!.status).toBe(200);
      expect(replies[i]!.body.errors).toEqual([expect.objectContaining({ kind: section, status: "error", errorKind: "init_timeout" })]);
    }
  }, 20_000);
});

describe("generic profile", () => {
  test("providers from the session's models, unknown cells for what standard ACP cannot tell", async () => {
    await using d = await fakeAgentDaemon([], { env: { OPENAI_API_KEY: OPENAI_KEY } });
    await d.createSession();
    const bodies = await statuses(d);
    expectClean(bodies.values());
    const head = { v: 1, workspaceCwd: d.workspace, initialized: true };
    const unknown = (kind: string) => [{ kind, status: "unknown", hint: "the agent does not report this" }];
    expect(bodies.get("/workspace/mcp")).toEqual({ ...head, servers: [], errors: unknown("mcp") });
    expect(bodies.get("/workspace/skills")).toEqual({ ...head, skills: [], errors: unknown("skills") });
    expect(bodies.get("/workspace/tools")).toEqual({ ...head, acpChannelLive: true, tools: [], errors: unknown("tools") });
    expect(bodies.get("/workspace/providers")).toEqual({
      ...head,
      current: { authType: "unknown", modelId: "fake-model-a" },
      providers: [
        {
          kind: "model_provider",
          status: "ok",
          authType: "unknown",
          current: true,
          models: [
            { modelId: "fake-model-a", baseModelId: "fake-model-a", name: "fake-model-a", description: "fake model fake-model-a", contextLimit: null, isCurrent: true, isRuntime: false },
            { modelId: "fake-model-b", baseModelId: "fake-model-b", name: "fake-model-b", description: "fake model fake-model-b", contextLimit: null, isCurrent: false, isRuntime: false },
          ],
        },
      ],
    });
    const acp = bodies.get("/workspace/preflight").cells.filter((c: { locality: string }) => c.locality === "acp");
    expect(acp.map((c: { kind: string; status: string }) => [c.kind, c.status])).toEqual([
      ["auth", "unknown"],
      ["mcp_discovery", "unknown"],
      ["skills", "unknown"],
      ["providers", "unknown"],
      ["tool_registry", "unknown"],
      ["egress", "not_started"],
    ]);
  });
});
