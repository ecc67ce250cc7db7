/**
 * Per-agent wire facts (runtime/agent-profiles/): auth, custom model endpoint, permission option
 * ids, session/load, extension notifications; and how a profile is picked (launch, then agentInfo.name).
 */
import { describe, expect, test } from "bun:test";
import { AGENT_NAMES } from "../../../src/config/agent-catalog.ts";
import type { AcpChannel } from "../../../src/runtime/acp-channel.ts";
import { authenticateIfNeeded, launchProfile, profileFor } from "../../../src/runtime/agent-profile.ts";

const endpoint = { baseUrl: "http://127.0.0.1:1234/v1", model: "mock-model", apiKey: "sk-mock" };
const keyless = { baseUrl: "http://127.0.0.1:1234/v1", model: null, apiKey: null };

describe("auth", () => {
  test.each([
    ["qwen-code", ["OPENAI_API_KEY"], null],
    ["claude", ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"], null],
    ["gemini", ["GEMINI_API_KEY", "GOOGLE_API_KEY"], null],
    ["codex", ["OPENAI_API_KEY", "CODEX_API_KEY"], { methodId: "api-key", whenEnv: "OPENAI_API_KEY" }],
    ["opencode", [], null],
    ["generic", [], null],
  ] as const)("%s: credentials in %j, authenticate %j", (name, env, authenticate) => {
    const { facts } = launchProfile(name);
    expect(facts.authEnv).toEqual([...env]);
    expect(facts.authenticate).toEqual(authenticate);
  });

  const channel = (authMethods: unknown[]) => {
    const sent: unknown[] = [];
    return { sent, channel: { init: { protocolVersion: 1, authMethods }, request: async (method: string, params: unknown) => (sent.push({ method, params }), {}) } as unknown as AcpChannel };
  };

  test("codex: authenticate {methodId: api-key} only when OPENAI_API_KEY is set and initialize offers it", async () => {
    const codex = launchProfile("codex");
    const offered = channel([{ id: "api-key", name: "API Key" }, { id: "chat-gpt", name: "ChatGPT" }]);
    expect(await authenticateIfNeeded(offered.channel, codex, { OPENAI_API_KEY: "sk" }, 1000)).toBe(true);
    expect(offered.sent).toEqual([{ method: "authenticate", params: { methodId: "api-key" } }]);
    const v2 = channel([{ methodId: "api-key", type: "agent", name: "API Key" }]);
    expect(await authenticateIfNeeded(v2.channel, codex, { OPENAI_API_KEY: "sk" }, 1000)).toBe(true);
    const noKey = channel([{ id: "api-key", name: "API Key" }]);
    expect(await authenticateIfNeeded(noKey.channel, codex, { OPENAI_API_KEY: "" }, 1000)).toBe(false);
    const notOffered = channel([{ id: "chat-gpt", name: "ChatGPT" }]);
    expect(await authenticateIfNeeded(notOffered.channel, codex, { OPENAI_API_KEY: "sk" }, 1000)).toBe(false);
    expect([...noKey.sent, ...notOffered.sent]).toEqual([]);
  });

  test("no other agent authenticates over ACP", async () => {
    for (const name of AGENT_NAMES.filter((n) => n !== "codex")) {
      const c = channel([{ id: "api-key", name: "k" }, { id: "openai", name: "o" }]);
      expect(await authenticateIfNeeded(c.channel, launchProfile(name), { OPENAI_API_KEY: "sk", GEMINI_API_KEY: "g" }, 1000)).toBe(false);
    }
  });
});

describe("custom model endpoint", () => {
  test("qwen-code: OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL; a keyless endpoint gets a placeholder key", () => {
    expect(launchProfile("qwen-code").facts.modelEndpointEnv(endpoint)).toEqual({ OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_KEY: "sk-mock", OPENAI_MODEL: "mock-model" });
    expect(launchProfile("qwen-code").facts.modelEndpointEnv(keyless)).toEqual({ OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_KEY: "svc-no-key" });
  });
  test("claude: ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY / ANTHROPIC_MODEL; the other tokens emptied; a keyless endpoint gets a placeholder key", () => {
    const tokens = { ANTHROPIC_AUTH_TOKEN: "", CLAUDE_CODE_OAUTH_TOKEN: "" };
    expect(launchProfile("claude").facts.modelEndpointEnv(endpoint)).toEqual({ ANTHROPIC_BASE_URL: endpoint.baseUrl, ANTHROPIC_API_KEY: "sk-mock", ANTHROPIC_MODEL: "mock-model", ...tokens });
    expect(launchProfile("claude").facts.modelEndpointEnv(keyless)).toEqual({ ANTHROPIC_BASE_URL: endpoint.baseUrl, ANTHROPIC_API_KEY: "svc-no-key", ...tokens });
  });
  test("gemini: GOOGLE_GEMINI_BASE_URL / GEMINI_API_KEY (a placeholder when keyless: it refuses to start without) / GEMINI_MODEL", () => {
    expect(launchProfile("gemini").facts.modelEndpointEnv(endpoint)).toEqual({ GOOGLE_GEMINI_BASE_URL: endpoint.baseUrl, GEMINI_API_KEY: "sk-mock", GOOGLE_API_KEY: "", GEMINI_MODEL: "mock-model" });
    expect(launchProfile("gemini").facts.modelEndpointEnv(keyless).GEMINI_API_KEY).toBe("svc-no-key");
  });
  test("codex: OPENAI_BASE_URL; both key variables it reads (CODEX_API_KEY first) get the endpoint's key or a placeholder, not the inherited one", () => {
    expect(launchProfile("codex").facts.modelEndpointEnv(endpoint)).toEqual({ OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_KEY: "sk-mock", CODEX_API_KEY: "sk-mock" });
    expect(launchProfile("codex").facts.modelEndpointEnv(keyless)).toEqual({ OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_KEY: "svc-no-key", CODEX_API_KEY: "svc-no-key" });
  });
  test("opencode: an inline OPENCODE_CONFIG_CONTENT with an OpenAI-compatible provider selected as the model", () => {
    const env = launchProfile("opencode").facts.modelEndpointEnv(endpoint);
    expect(Object.keys(env)).toEqual(["OPENCODE_CONFIG_CONTENT"]);
    expect(JSON.parse(env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      provider: { svc: { npm: "@ai-sdk/openai-compatible", name: "svc endpoint", options: { baseURL: endpoint.baseUrl, apiKey: "sk-mock" }, models: { "mock-model": {} } } },
      model: "svc/mock-model",
      small_model: "svc/mock-model",
    });
  });
  test("builtin: the built-in agent's OPENAI_* variables; generic: nothing (its variables are unknown)", () => {
    expect(launchProfile("builtin").facts.modelEndpointEnv(endpoint)).toEqual({ OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_KEY: "sk-mock", OPENAI_MODEL: "mock-model" });
    expect(launchProfile("builtin").facts.modelEndpointEnv(keyless)).toEqual({ OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_KEY: "svc-no-key" });
    expect(launchProfile("generic").facts.modelEndpointEnv(endpoint)).toEqual({});
  });
});

describe("spawn variables", () => {
  test("claude: no self-update; an IS_SANDBOX other than 1 is emptied (Claude Code refuses bypass as root for it), 1 and unset are left alone", () => {
    const { facts } = launchProfile("claude");
    expect(facts.spawnEnv({ IS_SANDBOX: "yes" })).toEqual({ DISABLE_AUTOUPDATER: "1", IS_SANDBOX: "" });
    expect(facts.spawnEnv({ IS_SANDBOX: "1" })).toEqual({ DISABLE_AUTOUPDATER: "1" });
    expect(facts.spawnEnv({})).toEqual({ DISABLE_AUTOUPDATER: "1" });
  });
  test("opencode: no self-update; the others add nothing", () => {
    expect(launchProfile("opencode").facts.spawnEnv({})).toEqual({ OPENCODE_DISABLE_AUTOUPDATE: "1" });
    for (const name of ["builtin", "qwen-code", "gemini", "codex", "generic"] as const) expect(launchProfile(name).facts.spawnEnv({ IS_SANDBOX: "yes" })).toEqual({});
  });
});

describe("permission option ids, session/load, extension notifications, stop", () => {
  test.each([
    ["qwen-code", ["proceed_once", "proceed_always", "cancel"], true, true, ["_qwencode/start_turn", "_qwencode/end_turn", "qwen/notify/session/mcp-budget-event"], false],
    ["builtin", ["proceed_once", "proceed_always", "cancel"], true, true, ["svc/notify/session/mcp-budget-event"], false],
    ["claude", ["allow-once", "allow-with-updates", "reject"], true, true, [], false],
    ["gemini", ["proceed_once", "proceed_always", "cancel"], true, false, [], true],
    ["codex", ["allow_once", "allow_for_session", "decline"], true, true, ["_auth/status_update"], false],
    ["opencode", ["once", "always", "reject"], true, false, [], false],
  ] as const)("%s: options %j, load %p, resume %p, notifications %j, ignores SIGTERM %p", (name, [allowOnce, allowAlways, rejectOnce], load, resume, notes, deaf) => {
    const { facts } = launchProfile(name);
    expect(facts.permissionOptionIds).toEqual({ allowOnce, allowAlways, rejectOnce });
    expect([facts.sessionLoad, facts.sessionResume]).toEqual([load, resume]);
    expect(facts.extensionNotifications).toEqual([...notes]);
    expect(facts.ignoresSigterm).toBe(deaf);
  });
});

describe("profile selection", () => {
  test("the launch picks the profile; agentInfo.name refines it", () => {
    expect(launchProfile("builtin").name).toBe("svc");
    for (const name of ["qwen-code", "claude", "gemini", "codex", "opencode", "generic"] as const) expect(launchProfile(name).name).toBe(name);
    // A generic launch is recognised by the name the agent gives.
    expect(profileFor("qwen-code", "generic").name).toBe("qwen-code");
    expect(profileFor("@agentclientprotocol/claude-agent-acp", "generic").name).toBe("claude");
    expect(profileFor("gemini-cli", "generic").name).toBe("gemini");
    expect(profileFor("@agentclientprotocol/codex-acp", "generic").name).toBe("codex");
    expect(profileFor("OpenCode", "generic").name).toBe("opencode");
    expect(profileFor("svc", "generic").name).toBe("svc");
    // An unknown name keeps the launched agent's profile.
    expect(profileFor("claude-agent-acp-next", "claude").name).toBe("claude");
    expect(profileFor("something", "generic").name).toBe("generic");
    expect(profileFor("__proto__", "generic").name).toBe("generic");
  });
});
