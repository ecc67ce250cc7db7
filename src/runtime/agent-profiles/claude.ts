/**
 * Claude Agent (`@agentclientprotocol/claude-agent-acp` 0.101.0). Sources, in the installed package:
 * dist/acp-agent.js (agentInfo.name is the package name; authMethods []; loadSession true),
 * dist/permissions/options/shared.js (PERMISSION_OPTION_ID: allow-once, allow-with-updates, reject;
 * every option the adapter offers is built from these ids — `allow`/`allow_always` in its sources are
 * rule behaviours and option kinds, not ids),
 * dist/settings.js (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN read from the env).
 * By experiment (interop-facts.md): the base URL is given WITHOUT `/v1` (it calls `<base>/v1/messages`);
 * ANTHROPIC_MODEL picks the model; it also sends side requests (titles) to the same endpoint.
 * Permission options are told apart by `kind` (allow_once, allow_always, reject_once) as well.
 * IS_SANDBOX: the adapter allows its bypass mode as root for any non-empty value, Claude Code only
 * for "1", so an inherited `IS_SANDBOX=yes` fails session/new (`bypass_root`); emptying it makes the
 * adapter not ask for bypass (it never widens what the agent may do).
 */
import { endpointCredentials, type AgentFacts } from "./facts.ts";

export const CLAUDE_FACTS: AgentFacts = {
  agentInfoNames: ["@agentclientprotocol/claude-agent-acp", "@zed-industries/claude-agent-acp", "@zed-industries/claude-code-acp"],
  authEnv: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"],
  // authMethods is [] and session/new works without a key: a missing key fails only the prompt.
  authenticate: null,
  spawnEnv: (env) => ({ DISABLE_AUTOUPDATER: "1", ...(env.IS_SANDBOX && env.IS_SANDBOX !== "1" ? { IS_SANDBOX: "" } : {}) }),
  modelEndpointEnv: ({ baseUrl, model, apiKey }) => ({
    ANTHROPIC_BASE_URL: baseUrl,
    // Claude Code sends ANTHROPIC_AUTH_TOKEN (bearer) and an OAuth token to the base URL as well.
    ...endpointCredentials("ANTHROPIC_API_KEY", apiKey, ["ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]),
    ...(model ? { ANTHROPIC_MODEL: model } : {}),
  }),
  permissionOptionIds: { allowOnce: "allow-once", allowAlways: "allow-with-updates", rejectOnce: "reject" },
  sessionLoad: true,
  sessionResume: true,
  extensionNotifications: [],
  ignoresSigterm: false,
};
