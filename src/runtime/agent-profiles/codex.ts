/**
 * Codex (`@agentclientprotocol/codex-acp` 2.6.0). Sources, in the npm tarball's dist/index.js:
 * `initialize` (agentInfo.name is the package name; loadSession true; sessionCapabilities resume,
 * close; `_meta` announces `_auth/status_update` notifications), getCodexAuthMethods (`api-key`
 * always; `chat-gpt` unless NO_BROWSER is set), authenticateWithApiKey (reads OPENAI_API_KEY),
 * src/permissions/option-ids.ts (allow_once, allow_for_session, decline). The `@openai/codex` binary
 * it drives reads OPENAI_BASE_URL for its built-in OpenAI provider. By experiment (interop-facts.md):
 * launch dist/index.js itself (through the .bin symlink it exits at once); a custom provider in a
 * scratch CODEX_HOME's config.toml needs no `authenticate` at all; INITIAL_AGENT_MODE picks the
 * first session mode (read-only, workspace-write, agent — the default, whose reviewer answers
 * permissions itself —, agent-full-access).
 *
 * codex-acp 2.6.0 ignores OPENAI_BASE_URL (its turns go to api.openai.com whatever it says) and
 * reads CODEX_API_KEY before OPENAI_API_KEY, so settings `agents.codex.model` is refused at boot
 * (config/agent-launch.ts): codex's endpoint is set in its own config.toml. The variables below are
 * what an endpoint would get all the same: both key variables carry the endpoint's key or the
 * placeholder, never the user's inherited OpenAI key.
 */
import { endpointCredentials, type AgentFacts } from "./facts.ts";

export const CODEX_FACTS: AgentFacts = {
  agentInfoNames: ["@agentclientprotocol/codex-acp", "@zed-industries/codex-acp", "codex-acp"],
  authEnv: ["OPENAI_API_KEY", "CODEX_API_KEY"],
  // session/new answers -32000 "Authentication required" until `authenticate {methodId: "api-key"}`.
  spawnEnv: () => ({}),
  authenticate: { methodId: "api-key", whenEnv: "OPENAI_API_KEY" },
  modelEndpointEnv: ({ baseUrl, apiKey }) => ({
    OPENAI_BASE_URL: baseUrl,
    ...endpointCredentials("OPENAI_API_KEY", apiKey),
    ...endpointCredentials("CODEX_API_KEY", apiKey),
  }),
  permissionOptionIds: { allowOnce: "allow_once", allowAlways: "allow_for_session", rejectOnce: "decline" },
  sessionLoad: true,
  sessionResume: true,
  extensionNotifications: ["_auth/status_update"],
  ignoresSigterm: false,
};
