/**
 * The built-in agent's models: where each comes from (a provider's environment variables
 * (`env-providers.ts`), a provider set up through the daemon's API and handed over with the keys, a
 * `model.providers` entry of the host settings) and what an entry holds. The agent's configuration
 * (`agent-config.ts`) builds its list from these; the daemon asks only `builtinModelConfigured`, to
 * say at start that there is none, without loading the rest of the agent's configuration.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HandedProvider } from "./agent-keys.ts";
import { ENV_PROVIDERS } from "./env-providers.ts";
import { objectAt, readSettingsDoc as readJson } from "./settings-doc.ts";

type ModelEnv = Readonly<Record<string, string | undefined>>;

/** The wire dialect of a model endpoint. */
export const PROVIDER_KINDS = ["openai-compatible", "anthropic", "google"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ModelEntry {
  /** `<provider>/<model>`, the ACP model id. */
  readonly id: string;
  readonly kind: ProviderKind;
  readonly providerId: string;
  readonly model: string;
  readonly baseUrl: string;
  /** Resolved from `apiKeyEnv`; absent for keyless local servers. */
  readonly apiKey: string | undefined;
  /** The model's context window in tokens: `contextLimit` of its settings entry, else DEFAULT_CONTEXT_LIMIT. */
  readonly contextLimit: number;
  /** The output token limit sent with each request: `maxOutputTokens` of its settings entry, else DEFAULT_MAX_OUTPUT_TOKENS. */
  readonly maxOutputTokens: number;
}

/** Context window assumed for a model whose settings do not give one (env-configured models). */
export const DEFAULT_CONTEXT_LIMIT = 128_000;
/**
 * Output token limit for a model whose settings do not give one: what current hosted and local
 * models accept (a provider may refuse a limit above its model's own; Anthropic's is clamped by
 * its SDK). Set `maxOutputTokens` on the provider entry for more, or for less with older models.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
/** Largest `maxOutputTokens` a settings entry may give. */
export const MAX_OUTPUT_TOKENS_LIMIT = 1_000_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const nonEmpty = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

export function envModels(env: ModelEnv): ModelEntry[] {
  const models: ModelEntry[] = [];
  for (const p of ENV_PROVIDERS) {
    const model = env[p.modelEnv];
    const key = env[p.keyEnv];
    const baseUrl = p.baseUrlEnv ? env[p.baseUrlEnv] : undefined;
    // A keyless entry is allowed only for an explicit base URL (a local server needs no key).
    if (!nonEmpty(model) || !(nonEmpty(key) || nonEmpty(baseUrl))) continue;
    models.push({
      id: `${p.id}/${model.trim()}`,
      kind: p.kind,
      providerId: p.id,
      model: model.trim(),
      baseUrl: nonEmpty(baseUrl) ? baseUrl.trim() : p.baseUrl,
      apiKey: nonEmpty(key) ? key : undefined,
      contextLimit: DEFAULT_CONTEXT_LIMIT,
      maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    });
  }
  return models;
}

/** The providers set up through the daemon's API (`POST /workspace/auth/provider`), with their stored keys. */
export function handedModels(providers: readonly HandedProvider[]): ModelEntry[] {
  return providers.flatMap((p) =>
    p.models.map((model) => ({ id: `${p.id}/${model}`, kind: p.kind, providerId: p.id, model, baseUrl: p.baseUrl, apiKey: p.apiKey === "" ? undefined : p.apiKey, contextLimit: DEFAULT_CONTEXT_LIMIT, maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS })),
  );
}

/** `model.providers`: `[{id, kind?, baseUrl, apiKeyEnv?, contextLimit?, maxOutputTokens?, models: [name…]}]`; `kind` defaults to `openai-compatible`. */
export function settingsModels(file: string, doc: Record<string, unknown>, env: ModelEnv, warnings: string[]): ModelEntry[] {
  const providers = objectAt(doc, "model").providers;
  if (providers === undefined) return [];
  if (!Array.isArray(providers)) {
    warnings.push(`${file}: model.providers must be an array; ignored`);
    return [];
  }
  const models: ModelEntry[] = [];
  providers.forEach((entry: unknown, index) => {
    const p = (entry ?? {}) as Record<string, unknown>;
    const where = `${file}: model.providers[${index}]`;
    if (typeof p.id !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(p.id)) return void warnings.push(`${where}.id must be 1-64 letters, digits, '.', '_' or '-'; entry ignored`);
    const kind = p.kind ?? "openai-compatible";
    if (!PROVIDER_KINDS.includes(kind as ProviderKind)) return void warnings.push(`${where}.kind must be one of ${PROVIDER_KINDS.join(", ")}; entry ignored`);
    if (typeof p.baseUrl !== "string" || !/^https?:\/\//.test(p.baseUrl)) return void warnings.push(`${where}.baseUrl must be an http(s) URL; entry ignored`);
    if (p.apiKeyEnv !== undefined && (typeof p.apiKeyEnv !== "string" || !ENV_NAME.test(p.apiKeyEnv)))
      return void warnings.push(`${where}.apiKeyEnv must be an environment variable name; entry ignored`);
    if (!Array.isArray(p.models) || !p.models.every((m) => typeof m === "string" && m.trim() !== ""))
      return void warnings.push(`${where}.models must be an array of model names; entry ignored`);
    if (p.contextLimit !== undefined && !(Number.isSafeInteger(p.contextLimit) && (p.contextLimit as number) > 0))
      return void warnings.push(`${where}.contextLimit must be a positive whole number of tokens; entry ignored`);
    if (p.maxOutputTokens !== undefined && !(Number.isSafeInteger(p.maxOutputTokens) && (p.maxOutputTokens as number) >= 1 && (p.maxOutputTokens as number) <= MAX_OUTPUT_TOKENS_LIMIT))
      return void warnings.push(`${where}.maxOutputTokens must be a whole number of tokens from 1 to ${MAX_OUTPUT_TOKENS_LIMIT}; entry ignored`);
    const apiKey = typeof p.apiKeyEnv === "string" ? env[p.apiKeyEnv] : undefined;
    const contextLimit = (p.contextLimit as number | undefined) ?? DEFAULT_CONTEXT_LIMIT;
    const maxOutputTokens = (p.maxOutputTokens as number | undefined) ?? DEFAULT_MAX_OUTPUT_TOKENS;
    for (const model of p.models as string[])
      models.push({ id: `${p.id}/${model}`, kind: kind as ProviderKind, providerId: p.id, model, baseUrl: p.baseUrl, apiKey: nonEmpty(apiKey) ? apiKey : undefined, contextLimit, maxOutputTokens });
  });
  return models;
}

/**
 * Whether the built-in agent started with `env` would have a model: a provider's variables, a
 * provider set up through the API (`src/auth/`'s credentials file), or a usable `model.providers`
 * entry in `<dataDir>/settings.json`. The daemon's start-up check, by the
 * same rules the agent applies (an unusable settings file counts as no models, as in the agent).
 */
export function builtinModelConfigured(env: ModelEnv, dataDir: string): boolean {
  if (envModels(env).length > 0 || storedProvidersPresent(dataDir)) return true;
  const hostFile = join(dataDir, "settings.json");
  const ignored: string[] = [];
  return settingsModels(hostFile, readJson(hostFile, ignored), env, ignored).length > 0;
}

/** The credentials file the API's providers are kept in (`src/auth/credentials-store.ts`), and how much of it is read here. */
const CREDENTIALS_FILE = "credentials.json";
const MAX_CREDENTIALS_BYTES = 256 * 1024;

/** Whether `<dataDir>/credentials.json` lists a provider (a missing, oversized or damaged file lists none). */
function storedProvidersPresent(dataDir: string): boolean {
  try {
    const bytes = readFileSync(join(dataDir, CREDENTIALS_FILE));
    if (bytes.length > MAX_CREDENTIALS_BYTES) return false;
    const providers = (JSON.parse(bytes.toString("utf8")) as { providers?: unknown } | null)?.providers;
    return Array.isArray(providers) && providers.length > 0;
  } catch {
    return false;
  }
}
