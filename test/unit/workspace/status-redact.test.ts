/**
 * The status sanitizer on its own (the HTTP tests also see the route schemas drop undeclared
 * members; this checks the sanitizer does not lean on that): every secret kind planted in an
 * agent's answers is gone from what each redactor returns, and the allowed members stay.
 */
import { expect, test } from "bun:test";
import { MAX_ANSWER_CHARS, MAX_ANSWER_DEPTH, MAX_ANSWER_NODES } from "../../../src/workspace/agent-json.ts";
import { AgentAnswerError, clean, redactHooks, redactMcp, redactPreflight, redactProviders, redactSessionView, redactSkills, redactTools } from "../../../src/workspace/status-redact.ts";

const S = "PLANTED-secret-value";
const SECRETS = [S];

const mcp = {
  servers: [{ kind: "mcp_server", status: "ok", name: "gh", transport: "stdio", config: { command: "npx", args: [`--token=${S}`], url: `https://x/${S}` }, env: { T: S }, headers: { A: S }, oauth: { clientSecret: S }, targetServiceAccount: S, description: `uses ${S}` }],
  budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", budget: 2, headers: { A: S } }],
};
const skills = { skills: [{ kind: "skill", status: "ok", name: "s", description: "d", installedPath: `/home/u/${S}/SKILL.md`, body: S, content: S, hooks: [S], filePath: S }] };
const providers = {
  current: { authType: "openai", modelId: "m", baseUrl: `https://${S}`, apiKey: S },
  providers: [{ kind: "model_provider", status: "ok", authType: "openai", current: true, apiKey: S, envKey: "OPENAI_API_KEY", models: [{ modelId: "m", name: "M", description: "served at https://corp.example/v1", contextLimit: 10, baseUrl: `https://${S}`, envKey: "CORP_KEY", apiKey: S, isCurrent: true, isRuntime: false }] }],
};
const tools = { tools: [{ name: "t", enabled: true, env: { K: S } }] };
const preflight = { cells: [{ kind: "auth", locality: "daemon", status: "ok", detail: { apiKey: S, serviceAccountKey: S, nested: [{ headers: { A: S }, installedPath: S }], ok: 1 } }] };

function expectNone(value: unknown, needles: string[]): void {
  const text = JSON.stringify(value);
  for (const needle of needles) expect({ needle, found: text.includes(needle) }).toEqual({ needle, found: false });
}

test("MCP cells keep their status members, lose config, env, headers, OAuth and service-account details", () => {
  const out = redactMcp(mcp, SECRETS);
  expectNone(out, [S, "config", "env", "headers", "oauth", "ServiceAccount", "npx"]);
  expect(out).toEqual({
    servers: [{ kind: "mcp_server", status: "ok", name: "gh", transport: "stdio", description: "uses [redacted]" }],
    budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", budget: 2 }],
  });
});

test("skills lose bodies, paths and hooks", () => {
  const out = redactSkills(skills, SECRETS);
  expectNone(out, [S, "installedPath", "SKILL.md", "body", "content", "hooks", "filePath"]);
  expect(out).toEqual({ skills: [{ kind: "skill", status: "ok", name: "s", description: "d" }] });
});

test("providers lose base addresses (even in prose), keys and key variable names", () => {
  const out = redactProviders(providers, SECRETS);
  expectNone(out, [S, "baseUrl", "apiKey", "envKey", "OPENAI_API_KEY", "CORP_KEY", "corp.example"]);
  expect(out.current).toEqual({ authType: "openai", modelId: "m" });
  expect((out.providers as any)[0].models[0].description).toBe("served at [address redacted]");
});

test("tools, preflight details and session views lose secret-bearing members at any depth", () => {
  expect(redactTools(tools, SECRETS)).toEqual({ tools: [{ name: "t", enabled: true }] });
  const cells = redactPreflight(preflight, SECRETS);
  expectNone(cells, [S]);
  // Whatever the agent claims, its cells are `acp` ones.
  expect(cells.cells).toEqual([{ kind: "auth", locality: "acp", status: "ok", detail: { nested: [{}], ok: 1 } }]);
  const view = redactSessionView("resources", { v: 1, skills, mcp, extra: { token: S, note: `echo ${S}` } }, SECRETS);
  expectNone(view, [S, "installedPath", "config"]);
});

test("names of environment variables leave no cell: qwen's auth cell members, and secret variable names in prose but the spec's whitelist", () => {
  const auth = {
    cells: [
      {
        kind: "auth",
        status: "error",
        hint: "set OPENAI_API_KEY or GITHUB_TOKEN, then retry",
        detail: { source: "openai", envVarCandidates: ["OPENAI_API_KEY"], presentVar: "OPENAI_API_KEY", apiKeyEnv: "CORP_KEY", variables: ["X_SECRET"] },
      },
    ],
  };
  const out = redactPreflight(auth, SECRETS);
  expectNone(out, ["GITHUB_TOKEN", "CORP_KEY", "X_SECRET", "envVarCandidates", "presentVar"]);
  expect(out.cells).toEqual([{ kind: "auth", locality: "acp", status: "error", hint: "set OPENAI_API_KEY or [variable redacted], then retry", detail: { source: "openai" } }]);
});

// Review findings 2, 3, 9 and 11 (hostile agent answers).

test("allowlisted members must be of the spec's type: an object, a number for a string, an unknown enum value is dropped", () => {
  const hostile = { Authorization: "Bearer zz", cookie: "sid=1", pwd: "hunter2", privateKeyPem: "-----BEGIN" };
  expect(redactSkills({ skills: [{ kind: "skill", status: "ok", name: "s", argumentHint: hostile, modelInvocable: "yes", level: 3 }] }, SECRETS)).toEqual({
    skills: [{ kind: "skill", status: "ok", name: "s" }],
  });
  const out = redactMcp(
    {
      discoveryState: { x: 1 },
      clientCount: "1",
      budgetMode: "x",
      servers: [{ kind: "mcp_server", status: "error", name: "m", disabledReason: { headers: { A: "Bearer q" } }, disabled: "true", description: "at https://user:pw@mcp.internal/x" }],
      budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", liveCount: { bearer: "zzz" }, budget: 2.5, mode: "x", refusedCount: 1 }],
    },
    SECRETS,
  );
  expect(out).toEqual({
    servers: [{ kind: "mcp_server", status: "error", name: "m", description: "at https://mcp.internal/x" }],
    budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", refusedCount: 1 }],
  });
});

test("strings anywhere lose credentials: Authorization values, PEM blocks, credential arguments, URL userinfo, home paths", () => {
  const text = "run npx srv --api-key=sk-xyz --token abc -H 'Authorization: Bearer qqq' ?access_token=t0k&x=1 https://u:pw@h.example/p /home/u/.qwen/skills/s/SKILL.md ~/.ssh/id -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- done";
  const out = redactTools({ tools: [{ name: "t", description: text }] }, SECRETS);
  const description = (out.tools as { description: string }[])[0]!.description;
  expectNone(description, ["sk-xyz", "abc", "qqq", "t0k", "u:pw", "/home/u", ".ssh", "MIIE"]);
  expect(description).toBe(
    "run npx srv --api-key=[redacted] --token [redacted] -H 'Authorization: Bearer [redacted]' ?access_token=[redacted]&x=1 https://h.example/p [path redacted] [path redacted] [private key redacted] done",
  );
});

test("a session view keeps its counters (numbers are never secrets) and loses credential members by a broad name rule", () => {
  const stats = {
    models: { m: { tokens: { prompt: 10, cached: 0 }, totalTokens: 15, cachedTokens: 2, inputTokens: 13, api: { totalRequests: 1 } } },
    Authorization: "Bearer zz",
    api_base: "https://api.example",
    apiBase: "https://api.example",
    endpoint: "https://e.example",
    cmd: "npx srv --api-key=sk-xyz",
    auth: "basic xyz",
    cookie: "sid=1",
    pwd: "hunter2",
    privateKeyPem: "-----BEGIN",
    location: "/home/u/.qwen",
    file: "/home/u/s.md",
    env: { GITHUB_TOKEN: "ghp_x", COUNT: 3 },
    authType: "openai",
    memoryFiles: [{ path: "/home/u/QWEN.md", tokens: 100 }],
  };
  expect(redactSessionView("stats", stats, SECRETS)).toEqual({
    models: { m: { tokens: { prompt: 10, cached: 0 }, totalTokens: 15, cachedTokens: 2, inputTokens: 13, api: { totalRequests: 1 } } },
    env: { COUNT: 3 },
    authType: "openai",
    memoryFiles: [{ tokens: 100 }],
  });
});

function nested(levels: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

test("an answer nested beyond the depth bound is refused with AgentAnswerError, never a stack overflow", () => {
  const deep = nested(50_000);
  expect(() => redactSkills({ skills: [{ kind: "skill", status: "ok", name: "s", argumentHint: deep }] }, SECRETS)).toThrow(AgentAnswerError);
  expect(() => redactSessionView("context_usage", { usage: deep }, SECRETS)).toThrow(AgentAnswerError);
  expect(() => clean({ x: deep }, SECRETS)).toThrow(AgentAnswerError);
  // Within the bound, it is walked.
  expect(clean({ x: nested(MAX_ANSWER_DEPTH - 2) }, SECRETS)).toEqual({ x: nested(MAX_ANSWER_DEPTH - 2) });
});

test("an answer beyond the size bounds (values, characters) is refused whole", () => {
  const many = { tools: Array.from({ length: 80_000 }, (_, i) => ({ name: `t${i}`, description: "d", enabled: true })) };
  expect(() => redactTools(many, SECRETS)).toThrow(AgentAnswerError);
  const long = { tools: [{ name: "t", description: "x".repeat(MAX_ANSWER_CHARS + 1) }] };
  expect(() => redactTools(long, SECRETS)).toThrow(AgentAnswerError);
  expect(MAX_ANSWER_NODES).toBeLessThan(80_000 * 3);
});

test("a session view that is not an object is refused", () => {
  for (const answer of ["a string", 7, [1], true]) expect(() => redactSessionView("lsp", answer, SECRETS)).toThrow(AgentAnswerError);
});

test("hook listings keep each hook's event, matcher, source and state, never its command, env, URL or headers (the reference agent sends them under config)", () => {
  const answer = {
    disabled: false,
    hooks: [
      { kind: "hook", eventName: "PreToolUse", matcher: "write_file", source: "project", enabled: true, config: { type: "command", command: `curl -H ${S}`, env: { K: S }, timeout: 5, name: "guard" } },
      { kind: "hook", eventName: "Stop", source: "user", enabled: false, config: { type: "http", url: `https://${S}`, headers: { A: S }, allowedEnvVars: [S] }, hookId: "h1" },
    ],
    events: { PreToolUse: { description: "Before tool execution", matcherKind: "toolName", extra: S } },
  };
  for (const redacted of [redactHooks(answer, SECRETS), redactSessionView("hooks", answer, SECRETS)]) {
    expectNone(redacted, [S, "\"command\":", "curl", "\"env\"", "\"url\"", "headers"]);
    expect(redacted.hooks).toEqual([
      { kind: "hook", eventName: "PreToolUse", matcher: "write_file", source: "project", enabled: true, config: { type: "command", timeout: 5, name: "guard" } },
      { kind: "hook", eventName: "Stop", source: "user", enabled: false, hookId: "h1", config: { type: "http" } },
    ]);
    expect(redacted.events).toEqual({ PreToolUse: { description: "Before tool execution", matcherKind: "toolName" } });
  }
});
