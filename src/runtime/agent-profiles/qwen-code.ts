/**
 * Qwen Code 0.24.4 (spec/acp-agents.md §A and §B, captured on the wire). Sources:
 * @qwen-code/qwen-code/cli.js (OPENAI_* auth, `qwen/*` extension methods, `_qwencode/*` notifications).
 */
import { endpointCredentials, type AgentFacts } from "./facts.ts";

export const QWEN_CODE_FACTS: AgentFacts = {
  agentInfoNames: ["qwen-code"],
  authEnv: ["OPENAI_API_KEY"],
  // authMethods `openai`; with OPENAI_API_KEY set it authenticates by itself (spec §A: session/new works).
  spawnEnv: () => ({}),
  authenticate: null,
  modelEndpointEnv: ({ baseUrl, model, apiKey }) => ({ OPENAI_BASE_URL: baseUrl, ...endpointCredentials("OPENAI_API_KEY", apiKey), ...(model ? { OPENAI_MODEL: model } : {}) }),
  permissionOptionIds: { allowOnce: "proceed_once", allowAlways: "proceed_always", rejectOnce: "cancel" },
  sessionLoad: true,
  sessionResume: true,
  extensionNotifications: ["_qwencode/start_turn", "_qwencode/end_turn", "qwen/notify/session/mcp-budget-event"],
  ignoresSigterm: false,
};
