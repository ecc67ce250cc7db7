/**
 * Which provider set up through the API (`src/auth/`) a third-party agent is pointed at, when the
 * settings name no endpoint for it (`agents.<name>.model` wins): the most recent one in the
 * agent's dialect, turned into the endpoint its profile maps to its documented variables
 * (`agent-profiles/`), which only that child receives. Each dialect's base URL is cut to the form
 * the agent expects (Claude appends `/v1/messages` itself, Gemini `/v1beta/models/…`). Codex has no
 * dialect here (codex-acp ignores OPENAI_BASE_URL, see `agent-profiles/codex.ts`), nor has `generic`
 * (its variables are unknown). Pure.
 */
import type { AgentName } from "../config/agent-catalog.ts";
import type { HandedProvider } from "../config/agent-keys.ts";
import type { ModelEndpoint } from "../config/agent-settings.ts";

const DIALECTS: Partial<Record<AgentName, { readonly kind: HandedProvider["kind"]; readonly trim: RegExp | null }>> = {
  claude: { kind: "anthropic", trim: /\/v1\/?$/ },
  gemini: { kind: "google", trim: /\/v1beta\/?$/ },
  "qwen-code": { kind: "openai-compatible", trim: null },
  opencode: { kind: "openai-compatible", trim: null },
};

/** `providers` are most recent first. */
export function storedEndpoint(agent: AgentName, providers: readonly HandedProvider[]): ModelEndpoint | null {
  const dialect = DIALECTS[agent];
  const provider = dialect && providers.find((p) => p.kind === dialect.kind);
  if (!dialect || !provider) return null;
  return { baseUrl: dialect.trim ? provider.baseUrl.replace(dialect.trim, "") : provider.baseUrl, model: provider.models[0] ?? null, apiKey: provider.apiKey === "" ? null : provider.apiKey };
}
