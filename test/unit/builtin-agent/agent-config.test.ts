import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS_LIMIT, resolveAgentConfig } from "../../../src/config/agent-config.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";

const dirs: TempDir[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await d[Symbol.asyncDispose]();
});

function setup(host?: unknown, workspaceSettings?: unknown) {
  const home = tempDir("svc-agent-home-");
  const ws = tempDir("svc-agent-ws-");
  dirs.push(home, ws);
  if (host !== undefined) writeFileSync(join(home.path, "settings.json"), typeof host === "string" ? host : JSON.stringify(host));
  if (workspaceSettings !== undefined) {
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify(workspaceSettings));
  }
  return { home: home.path, workspace: ws.path };
}

describe("resolveAgentConfig", () => {
  test("models from the environment: OpenAI-compatible with a key or a base URL, OpenRouter, DashScope", () => {
    const { home, workspace } = setup();
    const config = resolveAgentConfig({
      trusted: true,
      approvalModeFlag: null,
      workspace,
      env: { SVC_HOME: home, OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", OPENAI_MODEL: "llama3", OPENROUTER_API_KEY: "or", OPENROUTER_MODEL: "x/y", DASHSCOPE_API_KEY: "ds" },
    });
    expect(config.models.map((m) => [m.id, m.baseUrl, m.apiKey])).toEqual([
      ["openai/llama3", "http://127.0.0.1:11434/v1", undefined],
      ["openrouter/x/y", "https://openrouter.ai/api/v1", "or"],
    ]);
    expect(config.defaultModelId).toBe("openai/llama3");
  });

  test("Anthropic and Google models from their variables, with their wire kinds", () => {
    const { home, workspace } = setup();
    const config = resolveAgentConfig({ trusted: true, approvalModeFlag: null, workspace, env: { SVC_HOME: home, ANTHROPIC_API_KEY: "a", ANTHROPIC_MODEL: "claude-x", GEMINI_API_KEY: "g", GEMINI_MODEL: "gemini-x" } });
    expect(config.models.map((m) => [m.id, m.kind, m.baseUrl])).toEqual([
      ["anthropic/claude-x", "anthropic", "https://api.anthropic.com/v1"],
      ["google/gemini-x", "google", "https://generativelanguage.googleapis.com/v1beta"],
    ]);
  });

  test("model.providers entries may name their kind; an unknown kind is a warning", () => {
    const { home, workspace } = setup({ model: { providers: [{ id: "proxy", kind: "anthropic", baseUrl: "http://127.0.0.1:9/v1", models: ["c"] }, { id: "odd", kind: "carrier-pigeon", baseUrl: "http://x/v1", models: ["m"] }] } });
    const config = resolveAgentConfig({ trusted: true, approvalModeFlag: null, workspace, env: { SVC_HOME: home } });
    expect(config.models.map((m) => [m.id, m.kind])).toEqual([["proxy/c", "anthropic"]]);
    expect(config.warnings.some((w) => w.includes("model.providers[1].kind"))).toBe(true);
  });

  test("maxOutputTokens: the provider entry's, validated, else the default (env-configured models too)", () => {
    const providers = [
      { id: "big", baseUrl: "http://127.0.0.1:9/v1", models: ["m"], maxOutputTokens: 32_000 },
      { id: "zero", baseUrl: "http://127.0.0.1:9/v1", models: ["m"], maxOutputTokens: 0 },
      { id: "huge", baseUrl: "http://127.0.0.1:9/v1", models: ["m"], maxOutputTokens: MAX_OUTPUT_TOKENS_LIMIT + 1 },
      { id: "text", baseUrl: "http://127.0.0.1:9/v1", models: ["m"], maxOutputTokens: "8k" },
      { id: "plain", baseUrl: "http://127.0.0.1:9/v1", models: ["m"] },
    ];
    const { home, workspace } = setup({ model: { providers } });
    const config = resolveAgentConfig({ trusted: true, approvalModeFlag: null, workspace, env: { SVC_HOME: home, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_MODEL: "e" } });
    expect(config.models.map((m) => [m.id, m.maxOutputTokens])).toEqual([
      ["openai/e", DEFAULT_MAX_OUTPUT_TOKENS],
      ["big/m", 32_000],
      ["plain/m", DEFAULT_MAX_OUTPUT_TOKENS],
    ]);
    for (const i of [1, 2, 3]) expect(config.warnings.some((w) => w.includes(`model.providers[${i}].maxOutputTokens`))).toBe(true);
  });

  test("named models from the host's model.providers, keys by variable name; model.name picks the default", () => {
    const { home, workspace } = setup({ model: { name: "big", providers: [{ id: "local", baseUrl: "http://127.0.0.1:8000/v1", apiKeyEnv: "LOCAL_KEY", models: ["small", "big"] }] } });
    const config = resolveAgentConfig({ trusted: true, approvalModeFlag: null, workspace, env: { SVC_HOME: home, LOCAL_KEY: "secret" } });
    expect(config.models.map((m) => [m.id, m.apiKey])).toEqual([
      ["local/small", "secret"],
      ["local/big", "secret"],
    ]);
    expect(config.defaultModelId).toBe("local/big");
    expect(config.shellEnv.LOCAL_KEY).toBeUndefined();
  });

  test("a workspace cannot declare providers; bad entries are warnings, not failures", () => {
    const { home, workspace } = setup({ model: { providers: [{ id: "bad id!", baseUrl: "x", models: [] }] } }, { model: { providers: [{ id: "evil", baseUrl: "http://evil/v1", apiKeyEnv: "OPENAI_API_KEY", models: ["m"] }] } });
    const config = resolveAgentConfig({ trusted: true, approvalModeFlag: null, workspace, env: { SVC_HOME: home, OPENAI_API_KEY: "k" } });
    expect(config.models).toEqual([]);
    expect(config.defaultModelId).toBeNull();
    expect(config.warnings.some((w) => w.includes("model.providers[0].id"))).toBe(true);
  });

  test("approval mode and disabled tools follow the workspace policy for the trust given; what is ignored is one warning line", () => {
    const s = setup({ tools: { approvalMode: "auto-edit", disabled: ["shell"] } }, { tools: { approvalMode: "yolo", disabled: [] }, mcpServers: {} });
    const untrusted = resolveAgentConfig({ workspace: s.workspace, env: { SVC_HOME: s.home }, trusted: false, approvalModeFlag: null });
    expect([untrusted.approvalMode, untrusted.trusted, untrusted.disabledTools]).toEqual(["default", false, ["shell"]]);
    expect(untrusted.ignoredSettings.map((i) => i.key)).toEqual(["tools.approvalMode", "tools.disabled", "mcpServers"]);
    expect(untrusted.warnings.filter((w) => w.startsWith("workspace settings ignored"))).toHaveLength(1);
    const trusted = resolveAgentConfig({ workspace: s.workspace, env: { SVC_HOME: s.home }, trusted: true, approvalModeFlag: null });
    expect([trusted.approvalMode, trusted.disabledTools]).toEqual(["auto-edit", []]);
    // A trusted workspace's MCP servers are its own to declare (`mcp-settings.ts`).
    expect(trusted.ignoredSettings.map((i) => i.key)).toEqual(["tools.approvalMode"]);
  });

  test("shell commands get the environment without the scrub list's names (keys, tokens, secrets, cloud credentials, passwords)", () => {
    const s = setup();
    const secrets = { OPENAI_API_KEY: "k", GITHUB_TOKEN: "t", MY_SECRET: "s", AWS_SECRET_ACCESS_KEY: "a", AWS_ACCESS_KEY_ID: "i", GOOGLE_APPLICATION_CREDENTIALS: "/c.json", DB_PASSWORD: "p" };
    const config = resolveAgentConfig({ trusted: true, approvalModeFlag: null, workspace: s.workspace, env: { SVC_HOME: s.home, PATH: "/bin", ...secrets } });
    expect(config.shellEnv).toEqual({ SVC_HOME: s.home, PATH: "/bin" });
  });

  test("keys handed over outside the environment feed the models, never the commands' environment", () => {
    const s = setup({ model: { providers: [{ id: "extra", baseUrl: "http://127.0.0.1:1/v1", apiKeyEnv: "MY_CRED", models: ["m2"] }] } });
    const config = resolveAgentConfig({
      trusted: true,
      approvalModeFlag: null,
      workspace: s.workspace,
      env: { SVC_HOME: s.home, PATH: "/bin", OPENAI_MODEL: "m", SVC_AGENT_KEYS_FD: "3" },
      keys: { OPENAI_API_KEY: "handed", MY_CRED: "cred" },
    });
    expect(config.models.map((m) => [m.id, m.apiKey])).toEqual([
      ["openai/m", "handed"],
      ["extra/m2", "cred"],
    ]);
    expect(config.shellEnv).toEqual({ SVC_HOME: s.home, PATH: "/bin", OPENAI_MODEL: "m" });
  });
});
