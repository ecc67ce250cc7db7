/**
 * The auth subsystem's one entry seam (loaded on first use, `server/lazy-seams.ts`): model providers
 * set up through the API and device-flow sign-in.
 *
 *   createAuth(deps) → { status, catalog, install, remove, flows }
 *   storedProviders(deps) → what the next agent start gets (tokens near expiry refreshed first)
 *
 * Nothing it returns to a route carries a key, a token, a refresh token or (but to a flow's
 * initiator) a user code or verification address.
 */
import type { HandedProvider } from "../config/agent-keys.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { CredentialsStore, type ProviderKind, type StoredProvider } from "./credentials-store.ts";
import { DeviceFlows } from "./device-flows.ts";
import { deviceFlowProviders, type DeviceFlowProvider } from "./device-providers.ts";
import { refreshTokens } from "./oauth-device.ts";
import { envProviderCells, PROVIDER_CATALOG, type ConfiguredProvider } from "./provider-catalog.ts";

export { CredentialsStore } from "./credentials-store.ts";
export type { FlowView } from "./device-flows.ts";
export type { ConfiguredProvider } from "./provider-catalog.ts";

/** A token this close to its expiry is refreshed before an agent start hands it over. */
export const REFRESH_AHEAD_MS = 5 * 60_000;

export interface AuthDeps {
  readonly dataDir: string;
  readonly workspace: string;
  /** The daemon's environment, for the providers whose keys it sets (values never returned). */
  readonly env: Readonly<Record<string, string>>;
  readonly logger: Logger;
}

export interface InstallRequest {
  readonly providerId: string;
  readonly kind?: ProviderKind;
  readonly baseUrl?: string;
  readonly models: readonly string[];
  readonly apiKey: string;
}

export interface InstallResult {
  readonly providerId: string;
  readonly kind: ProviderKind;
  readonly baseUrl: string;
  readonly models: string[];
  readonly keyStored: boolean;
}

function storedCell(p: StoredProvider): ConfiguredProvider {
  return {
    providerId: p.id,
    kind: p.kind,
    source: p.source,
    models: [...p.models],
    keyPresent: p.apiKey !== "",
    ...(p.expiresAt === undefined ? {} : { expiresAt: p.expiresAt, refreshable: p.refreshToken !== undefined }),
  };
}

export function createAuth(deps: AuthDeps) {
  const store = new CredentialsStore(deps.dataDir);
  const providers = (): DeviceFlowProvider[] => {
    const { providers: list, warnings } = deviceFlowProviders(deps.dataDir);
    for (const warning of warnings) deps.logger.warn(warning);
    return list;
  };
  const flows = new DeviceFlows({ providers, store, logger: deps.logger });
  return {
    flows,
    /** What is configured, from where, without secrets. */
    status() {
      return {
        v: 1 as const,
        workspaceCwd: deps.workspace,
        providers: [...store.read().map(storedCell), ...envProviderCells(deps.env)],
        pendingDeviceFlows: flows.pending(),
        supportedDeviceFlowProviders: providers().map((p) => p.id),
      };
    },
    /** The providers that can be set up, and the device-flow ones. */
    catalog() {
      const stored = new Set(store.read().map((p) => p.id));
      const fromEnv = new Set(envProviderCells(deps.env).map((p) => p.providerId));
      return {
        v: 1 as const,
        workspaceCwd: deps.workspace,
        providers: PROVIDER_CATALOG.map((p) => ({ ...p, configured: stored.has(p.id) || fromEnv.has(p.id) })),
        deviceFlowProviders: providers().map((p) => ({ id: p.id, label: p.label, kind: p.model.kind, models: [...p.model.models] })),
      };
    },
    /** Stores a provider and its key (replacing one of the same id). */
    install(request: InstallRequest): InstallResult {
      const known = PROVIDER_CATALOG.find((p) => p.id === request.providerId);
      const kind = request.kind ?? known?.kind ?? "openai-compatible";
      if (known && request.kind !== undefined && request.kind !== known.kind)
        throw new DaemonError(400, "unsupported_protocol", `Provider ${known.id} speaks ${known.kind}`);
      const baseUrl = (request.baseUrl ?? known?.baseUrl)?.replace(/\/+$/, "");
      if (baseUrl === undefined) throw new DaemonError(400, "invalid_base_url", "`baseUrl` is required for a custom provider");
      if (request.apiKey === "" && !request.baseUrl) throw new DaemonError(400, "invalid_request", "`apiKey` is required unless `baseUrl` names a (keyless) server");
      store.put({ id: request.providerId, kind, baseUrl, models: [...request.models], apiKey: request.apiKey, source: "api", updatedAt: Date.now() });
      deps.logger.info("model provider stored", { providerId: request.providerId, kind });
      return { providerId: request.providerId, kind, baseUrl, models: [...request.models], keyStored: request.apiKey !== "" };
    },
    /** Removes a stored provider and its key or tokens. */
    remove(providerId: string): void {
      if (!store.remove(providerId)) throw new DaemonError(404, "provider_not_found", "No such stored provider");
      deps.logger.info("model provider removed", { providerId });
    },
  };
}

export type AuthService = ReturnType<typeof createAuth>;

/**
 * The stored providers an agent start gets, most recent first. A device-flow token within
 * REFRESH_AHEAD_MS of its expiry is refreshed first (and stored); a refresh that fails leaves the
 * token as it is (the model refuses it, and the user signs in again).
 */
export async function storedProviders(deps: Pick<AuthDeps, "dataDir" | "logger">): Promise<HandedProvider[]> {
  const store = new CredentialsStore(deps.dataDir);
  const out: HandedProvider[] = [];
  for (let p of store.read()) {
    if (p.source === "device_flow" && p.refreshToken !== undefined && p.expiresAt !== undefined && p.expiresAt - Date.now() < REFRESH_AHEAD_MS) {
      const provider = deviceFlowProviders(deps.dataDir).providers.find((d) => d.id === p.id);
      try {
        if (!provider) throw new Error("its device-flow provider is no longer configured");
        const tokens = await refreshTokens(provider, p.refreshToken!);
        p = { ...p, apiKey: tokens.accessToken, updatedAt: p.updatedAt, ...(tokens.refreshToken === null ? {} : { refreshToken: tokens.refreshToken }), ...(tokens.expiresInS === null ? {} : { expiresAt: Date.now() + tokens.expiresInS * 1000 }) };
        store.put(p);
        deps.logger.info("device-flow token refreshed", { providerId: p.id });
      } catch (err) {
        deps.logger.warn("device-flow token not refreshed", { providerId: p.id, reason: (err as Error).message });
      }
    }
    out.push({ id: p.id, kind: p.kind, baseUrl: p.baseUrl, models: p.models, apiKey: p.apiKey });
  }
  return out;
}
