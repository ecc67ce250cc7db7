/**
 * The model providers `POST /workspace/auth/provider` knows by id (their dialect and base URL; a
 * request may override the URL), plus `custom` for any other server (kind and base URL required),
 * and how the providers whose keys sit in the daemon's environment are reported: as `source: env`,
 * without the value or the variable's name. Pure data and functions.
 */
import { ENV_PROVIDERS } from "../config/env-providers.ts";
import type { ProviderKind } from "./credentials-store.ts";

export interface CatalogEntry {
  readonly id: string;
  readonly label: string;
  readonly kind: ProviderKind;
  /** The default base URL; absent for `custom`. */
  readonly baseUrl?: string;
}

const LABELS: Record<string, string> = { openai: "OpenAI", openrouter: "OpenRouter", dashscope: "Alibaba DashScope", anthropic: "Anthropic", google: "Google Gemini" };

export const PROVIDER_CATALOG: readonly CatalogEntry[] = [
  ...ENV_PROVIDERS.map((p) => ({ id: p.id, label: LABELS[p.id] ?? p.id, kind: p.kind as ProviderKind, baseUrl: p.baseUrl })),
  { id: "custom", label: "Custom (a local server, a proxy, any other provider)", kind: "openai-compatible" },
];

/** One configured provider as the status route shows it. */
export interface ConfiguredProvider {
  readonly providerId: string;
  readonly kind: ProviderKind;
  /** `api`: set up through the API; `device_flow`: a sign-in; `env`: its key is in the daemon's environment. */
  readonly source: "api" | "device_flow" | "env";
  readonly models: string[];
  readonly keyPresent: boolean;
  /** A device-flow token's expiry (epoch ms), and whether it can be refreshed. */
  readonly expiresAt?: number;
  readonly refreshable?: boolean;
}

/** The providers whose key variable is set in `env` (their model variable named, if set). */
export function envProviderCells(env: Readonly<Record<string, string>>): ConfiguredProvider[] {
  return ENV_PROVIDERS.filter((p) => (env[p.keyEnv] ?? "") !== "").map((p) => {
    const model = env[p.modelEnv]?.trim();
    return { providerId: p.id, kind: p.kind as ProviderKind, source: "env" as const, models: model ? [model] : [], keyPresent: true };
  });
}
