/** Facts for an agent svc knows nothing about (`generic`), and for the built-in agent (`svc --acp`). */
import { endpointCredentials, type AgentFacts } from "./facts.ts";

export const GENERIC_FACTS: AgentFacts = {
  agentInfoNames: [],
  authEnv: [],
  authenticate: null,
  spawnEnv: () => ({}),
  // Nothing is known of an unknown agent's variables: it is left alone.
  modelEndpointEnv: () => ({}),
  permissionOptionIds: null,
  sessionLoad: false,
  sessionResume: false,
  extensionNotifications: [],
  ignoresSigterm: false,
};

/**
 * src/builtin-agent/agent-app.ts (agentInfo.name "svc", loadSession, resume), src/builtin-agent/permission.ts
 * (option ids in qwen's shape), config/agent-config.ts (OPENAI_* for an OpenAI-compatible endpoint;
 * a keyless one is allowed with an explicit base URL).
 */
export const SVC_FACTS: AgentFacts = {
  agentInfoNames: ["svc"],
  authEnv: ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "DASHSCOPE_API_KEY"],
  authenticate: null,
  spawnEnv: () => ({}),
  modelEndpointEnv: ({ baseUrl, model, apiKey }) => ({ OPENAI_BASE_URL: baseUrl, ...endpointCredentials("OPENAI_API_KEY", apiKey), ...(model ? { OPENAI_MODEL: model } : {}) }),
  permissionOptionIds: { allowOnce: "proceed_once", allowAlways: "proceed_always", rejectOnce: "cancel" },
  sessionLoad: true,
  sessionResume: true,
  extensionNotifications: ["svc/notify/session/mcp-budget-event"],
  ignoresSigterm: false,
};
