/**
 * OpenCode (`opencode-ai` 1.18.33, a native binary). Sources: strings of the platform binary
 * (opencode-<os>-<cpu>/bin/opencode): `agentInfo:{name:"OpenCode"}`, permission options
 * optionId "once" / "always" / "reject", authMethods `opencode-login`, OPENCODE_CONFIG_CONTENT (a
 * JSON config merged over the user's). It starts and opens sessions with no key (free models).
 * By experiment (interop-facts.md): the same provider config given as a file (OPENCODE_CONFIG) runs
 * offline (`@ai-sdk/openai-compatible` is bundled) and calls `<baseURL>/chat/completions`;
 * OPENCODE_DISABLE_AUTOUPDATE=1 keeps it from updating itself.
 */
import type { AgentFacts } from "./facts.ts";

export const OPENCODE_FACTS: AgentFacts = {
  agentInfoNames: ["OpenCode", "opencode"],
  authEnv: [],
  authenticate: null,
  spawnEnv: () => ({ OPENCODE_DISABLE_AUTOUPDATE: "1" }),
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
      // Titles and summaries use the small model: the same one, or it would call a hosted provider.
      model: `svc/${model ?? "default"}`,
      small_model: `svc/${model ?? "default"}`,
    }),
  }),
  permissionOptionIds: { allowOnce: "once", allowAlways: "always", rejectOnce: "reject" },
  sessionLoad: true,
  sessionResume: false,
  extensionNotifications: [],
  ignoresSigterm: false,
};
