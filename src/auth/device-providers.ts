/**
 * The OAuth 2.0 device-authorization providers (RFC 8628) svc can sign in with: a data table, not
 * code. Built in (`device-providers.json`): Qwen's (chat.qwen.ai, the public client id Qwen Code
 * uses, PKCE). More come from the host settings, `auth.deviceFlowProviders` in
 * `<data dir>/settings.json`, each `{id, label?, deviceAuthorizationEndpoint, tokenEndpoint,
 * clientId, scope?, pkce?, model: {kind?, baseUrl, models}}` (a settings entry with a built-in id
 * replaces it). Endpoints come from here only, never from a request, and must be http(s) URLs
 * without credentials; an entry that does not fit is skipped with a warning. What a sign-in
 * produces is a stored provider (`credentials-store.ts`): `model` says which endpoint the token is a
 * key for.
 */
import { join } from "node:path";
import { readSettingsText } from "../config/settings-file.ts";
import { PROVIDER_KINDS, type ProviderKind } from "./credentials-store.ts";
import table from "./device-providers.json" with { type: "json" };

export interface DeviceFlowProvider {
  readonly id: string;
  readonly label: string;
  readonly deviceAuthorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly scope: string | null;
  /** Send an S256 code challenge with the device code request and its verifier with each poll. */
  readonly pkce: boolean;
  /** The endpoint the access token is a key for, as a stored provider. */
  readonly model: { readonly kind: ProviderKind; readonly baseUrl: string; readonly models: readonly string[] };
}

/** Most providers taken from the settings. */
export const MAX_SETTINGS_DEVICE_PROVIDERS = 16;
const ID = /^[A-Za-z0-9._-]{1,64}$/;

/** An http(s) URL without user or password, or null. */
export function endpointUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "" ? url.href : null;
  } catch {
    return null;
  }
}

/** One table entry, or the reason it does not fit. Pure. */
export function parseDeviceProvider(raw: unknown): DeviceFlowProvider | string {
  const p = (raw ?? {}) as Record<string, unknown>;
  if (typeof p.id !== "string" || !ID.test(p.id)) return "id must be 1-64 letters, digits, '.', '_' or '-'";
  const device = endpointUrl(p.deviceAuthorizationEndpoint);
  const token = endpointUrl(p.tokenEndpoint);
  if (device === null || token === null) return "deviceAuthorizationEndpoint and tokenEndpoint must be http(s) URLs without credentials";
  if (typeof p.clientId !== "string" || p.clientId === "" || p.clientId.length > 256) return "clientId must be a non-empty string";
  if (p.scope !== undefined && (typeof p.scope !== "string" || p.scope.length > 1024)) return "scope must be a string";
  const m = (p.model ?? {}) as Record<string, unknown>;
  const kind = (m.kind ?? "openai-compatible") as ProviderKind;
  const baseUrl = endpointUrl(m.baseUrl);
  if (!PROVIDER_KINDS.includes(kind) || baseUrl === null || !Array.isArray(m.models) || m.models.length === 0 || !m.models.every((x) => typeof x === "string" && x !== ""))
    return "model must be {kind?, baseUrl, models: [name, …]}";
  return {
    id: p.id,
    label: typeof p.label === "string" ? p.label.slice(0, 200) : p.id,
    deviceAuthorizationEndpoint: device,
    tokenEndpoint: token,
    clientId: p.clientId,
    scope: (p.scope as string | undefined) ?? null,
    pkce: p.pkce === true,
    model: { kind, baseUrl: (m.baseUrl as string).replace(/\/+$/, ""), models: m.models as string[] },
  };
}

/** The built-in table and the host settings' entries, with the problems found as warnings. */
export function deviceFlowProviders(dataDir: string): { providers: DeviceFlowProvider[]; warnings: string[] } {
  const warnings: string[] = [];
  const byId = new Map<string, DeviceFlowProvider>();
  for (const raw of table.providers) {
    const p = parseDeviceProvider(raw);
    if (typeof p !== "string") byId.set(p.id, p);
  }
  let doc: unknown = null;
  try {
    doc = JSON.parse(readSettingsText(join(dataDir, "settings.json")) ?? "null");
  } catch {
    warnings.push("settings.json cannot be read; no device-flow providers taken from it");
  }
  const declared = ((doc as { auth?: { deviceFlowProviders?: unknown } } | null)?.auth ?? {}).deviceFlowProviders;
  if (declared !== undefined && !Array.isArray(declared)) warnings.push("settings.json: auth.deviceFlowProviders must be an array; ignored");
  else
    (declared ?? []).slice(0, MAX_SETTINGS_DEVICE_PROVIDERS).forEach((raw: unknown, i: number) => {
      const p = parseDeviceProvider(raw);
      if (typeof p === "string") warnings.push(`settings.json: auth.deviceFlowProviders[${i}]: ${p}; ignored`);
      else byId.set(p.id, p);
    });
  return { providers: [...byId.values()], warnings };
}
