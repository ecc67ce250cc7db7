/**
 * The model providers the built-in agent takes from environment variables alone: `<KEY>` +
 * `<MODEL>` (+ base URL). Read by the agent's configuration (`agent-config.ts`); the daemon needs
 * only the key names, to hand them to the agent outside its environment (`agent-keys.ts`).
 */
export const ENV_PROVIDERS = [
  { id: "openai", kind: "openai-compatible", keyEnv: "OPENAI_API_KEY", modelEnv: "OPENAI_MODEL", baseUrlEnv: "OPENAI_BASE_URL", baseUrl: "https://api.openai.com/v1" },
  { id: "openrouter", kind: "openai-compatible", keyEnv: "OPENROUTER_API_KEY", modelEnv: "OPENROUTER_MODEL", baseUrlEnv: null, baseUrl: "https://openrouter.ai/api/v1" },
  { id: "dashscope", kind: "openai-compatible", keyEnv: "DASHSCOPE_API_KEY", modelEnv: "DASHSCOPE_MODEL", baseUrlEnv: null, baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1" },
  { id: "anthropic", kind: "anthropic", keyEnv: "ANTHROPIC_API_KEY", modelEnv: "ANTHROPIC_MODEL", baseUrlEnv: "ANTHROPIC_BASE_URL", baseUrl: "https://api.anthropic.com/v1" },
  { id: "google", kind: "google", keyEnv: "GEMINI_API_KEY", modelEnv: "GEMINI_MODEL", baseUrlEnv: "GEMINI_BASE_URL", baseUrl: "https://generativelanguage.googleapis.com/v1beta" },
] as const;
