/**
 * Gemini CLI (`@google/gemini-cli` 0.61.0). Sources, in the installed package: bundle/gemini-*.js
 * (agentInfo name "gemini-cli"; permission options from ToolConfirmationOutcome: proceed_once,
 * proceed_always, cancel; GEMINI_API_KEY; GOOGLE_GEMINI_BASE_URL for the endpoint). Probe (spec
 * §A): it ignores SIGTERM for ~29 s but exits promptly on stdin EOF. By experiment
 * (interop-facts.md): GOOGLE_GEMINI_BASE_URL is the bare origin (it calls
 * `/v1beta/models/<m>:streamGenerateContent`), and setting it selects the `gateway` auth type.
 */
import { endpointCredentials, type AgentFacts } from "./facts.ts";

export const GEMINI_FACTS: AgentFacts = {
  agentInfoNames: ["gemini-cli"],
  authEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  // With GEMINI_API_KEY set it picks the `gemini-api-key` method itself; without one session/new fails -32000.
  spawnEnv: () => ({}),
  authenticate: null,
  // It refuses to start a session without a key, so a keyless endpoint gets a placeholder.
  modelEndpointEnv: ({ baseUrl, model, apiKey }) => ({ GOOGLE_GEMINI_BASE_URL: baseUrl, ...endpointCredentials("GEMINI_API_KEY", apiKey, ["GOOGLE_API_KEY"]), ...(model ? { GEMINI_MODEL: model } : {}) }),
  permissionOptionIds: { allowOnce: "proceed_once", allowAlways: "proceed_always", rejectOnce: "cancel" },
  sessionLoad: true,
  sessionResume: false,
  extensionNotifications: [],
  ignoresSigterm: true,
};
