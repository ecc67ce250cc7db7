/**
 * OpenCode (`opencode-ai` 1.18.33, a native binary). Sources: strings of the platform binary
 * (opencode-<os>-<cpu>/bin/opencode): `agentInfo:{name:"OpenCode"}`, permission options
 * optionId "once" / "always" / "reject", authMethods `opencode-login`, OPENCODE_CONFIG_CONTENT (a
 * JSON config merged over the user's). It starts and opens sessions with no key (free models).
 */
import type { AgentFacts } from "./facts.ts";

export const OPENCODE_FACTS: AgentFacts = {
  agentInfoNames: ["OpenCode", "opencode"],
  authEnv: [],
  authenticate: null,
  // A custom OpenAI-compatible provider `svc` in the inline config, selected as the model.
  modelEndpointEnv: ({ baseUrl, model, apiKey }) => ({
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: {
        svc: {
          npm: "@ai-sdk/openai-compatible",
          name: "svc endpoint",
          options: { baseURL: baseUrl, ...(apiKey ? { apiKey } : {}) },
          models: { [model ?? "default"]: {} },
        },
      },
      model: `svc/${model ?? "default"}`,
    }),
  }),
  permissionOptionIds: { allowOnce: "once", allowAlways: "always", rejectOnce: "reject" },
  sessionLoad: true,
  sessionResume: false,
  extensionNotifications: [],
  ignoresSigterm: false,
};
