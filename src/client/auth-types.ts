/** The shapes of the auth routes (`/workspace/auth/*`): providers from the API and device-flow sign-in. */

export type ProviderKind = "openai-compatible" | "anthropic" | "google";

/** `POST /workspace/auth/provider`'s body: the key is stored by the daemon and never returned. */
export interface ProviderSetup {
  providerId: string;
  kind?: ProviderKind;
  baseUrl?: string;
  models: string[];
  /** "" for a keyless server. */
  apiKey: string;
}

export interface ProviderStored {
  providerId: string;
  kind: ProviderKind;
  baseUrl: string;
  models: string[];
  keyStored: boolean;
  /** `next_start`: the running agent takes it when it next starts; `not_running`: the next agent starts with it. */
  runtimeSync: "next_start" | "not_running";
}

/** `GET /workspace/auth/status`: what is configured and from where, no secret. */
export interface AuthStatus {
  v: 1;
  workspaceCwd: string;
  providers: { providerId: string; kind: ProviderKind; source: "api" | "device_flow" | "env"; models: string[]; keyPresent: boolean; expiresAt?: number; refreshable?: boolean }[];
  pendingDeviceFlows: { deviceFlowId: string; providerId: string; expiresAt: number }[];
  supportedDeviceFlowProviders: string[];
}

/** `GET /workspace/auth/providers`: what can be set up. */
export interface ProviderCatalog {
  v: 1;
  workspaceCwd: string;
  providers: { id: string; label: string; kind: ProviderKind; baseUrl?: string; configured: boolean }[];
  deviceFlowProviders: { id: string; label: string; kind: ProviderKind; models: string[] }[];
}

export type DeviceFlowStatus = "pending" | "authorized" | "denied" | "expired" | "cancelled" | "error";

/** A device-flow sign-in; `userCode` and the addresses only for its initiator while pending. */
export interface DeviceFlow {
  deviceFlowId: string;
  providerId: string;
  status: DeviceFlowStatus;
  createdAt: number;
  expiresAt: number;
  intervalMs: number;
  polls: number;
  lastPolledAt?: number;
  errorKind?: "access_denied" | "expired_token" | "upstream_error" | "poll_limit" | "persist_failed";
  hint?: string;
  userCode?: string;
  verificationUri?: string;
  verificationUriComplete?: string;
  /** On start only: a pending flow for the provider already ran and this is it. */
  attached?: boolean;
}
