/**
 * Claude Agent (`@agentclientprotocol/claude-agent-acp` 0.101.0). Sources, in the installed package:
 * dist/acp-agent.js (agentInfo.name is the package name; authMethods []; loadSession true),
 * dist/permissions/options/shared.js (PERMISSION_OPTION_ID: allow-once, allow-with-updates, reject),
 * dist/settings.js (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN read from the env).
 * By experiment (interop-facts.md): the base URL is given WITHOUT `/v1` (it calls `<base>/v1/messages`);
 * ANTHROPIC_MODEL picks the model; it also sends side requests (titles) to the same endpoint.
 * Permission options are told apart by `kind` (allow_once, allow_always, reject_once) as well.
 */
import type { AgentFacts } from "./facts.ts";

export const CLAUDE_FACTS: AgentFacts = {
  agentInfoNames: ["@agentclientprotocol/claude-agent-acp", "@zed-industries/claude-agent-acp", "@zed-industries/claude-code-acp"],
  authEnv: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"],
  // authMethods is [] and session/new works without a key: a missing key fails only the prompt.
  authenticate: null,
  modelEndpointEnv: ({ baseUrl, model, apiKey }) => ({
    ANTHROPIC_BASE_URL: baseUrl,
    ...(apiKey ? { ANTHROPIC_API_KEY: apiKey } : {}),
    ...(model ? { ANTHROPIC_MODEL: model } : {}),
  }),
  permissionOptionIds: { allowOnce: "allow-once", allowAlways: "allow-with-updates", rejectOnce: "reject" },
  sessionLoad: true,
  sessionResume: true,
  extensionNotifications: [],
  ignoresSigterm: false,
};
