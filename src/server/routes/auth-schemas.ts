/**
 * Request and answer schemas of the auth routes (`auth.ts`). No answer has a member for a key, a
 * token or a refresh token; a flow's user code and verification address are optional members, given
 * to its initiator only.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { notAnObject } from "./session-params.ts";

const fail = (code: string, message: string) => () => new DaemonError(400, code, message).body();

/** Longest key taken, in characters. */
export const MAX_API_KEY_CHARS = 8192;
/** Most model names in one provider, and the longest. */
export const MAX_PROVIDER_MODELS = 64;
const MAX_MODEL_CHARS = 200;

const Kind = t.Union([t.Literal("openai-compatible"), t.Literal("anthropic"), t.Literal("google")], { description: "The provider's wire dialect" });
const ProviderId = (error: () => unknown) =>
  t.String({ pattern: "^[A-Za-z0-9._-]{1,64}$", description: "A known provider (`GET /workspace/auth/providers`) or an id of your choice for any other server", error });

export const ProviderInstallBody = t.Object(
  {
    providerId: ProviderId(fail("invalid_request", "`providerId` must be 1-64 letters, digits, '.', '_' or '-'")),
    kind: t.Optional(t.Union([t.Literal("openai-compatible"), t.Literal("anthropic"), t.Literal("google")], { error: fail("unsupported_protocol", "`kind` must be openai-compatible, anthropic or google") })),
    baseUrl: t.Optional(
      t.String({
        pattern: "^https?://[^/@\\s]+(/[^\\s]*)?$",
        maxLength: 2048,
        description: "The API base URL (default: the known provider's); http(s), no credentials in it",
        error: fail("invalid_base_url", "`baseUrl` must be an http(s) URL without credentials"),
      }),
    ),
    models: t.Array(t.String({ minLength: 1, maxLength: MAX_MODEL_CHARS }), {
      minItems: 1,
      maxItems: MAX_PROVIDER_MODELS,
      description: "The model names to offer; the first is the default",
      error: fail("invalid_models", `\`models\` must list 1-${MAX_PROVIDER_MODELS} model names`),
    }),
    apiKey: t.String({
      maxLength: MAX_API_KEY_CHARS,
      description: "The key, stored in the 0600 credentials file and never returned; empty for a keyless server",
      error: fail("invalid_request", `\`apiKey\` must be a string of at most ${MAX_API_KEY_CHARS} characters`),
    }),
  },
  { additionalProperties: true, error: notAnObject },
);

export const ProviderInstallAnswer = t.Object(
  {
    providerId: t.String(),
    kind: Kind,
    baseUrl: t.String(),
    models: t.Array(t.String()),
    keyStored: t.Boolean({ description: "A key was stored (false: a keyless server)" }),
    runtimeSync: t.Union([t.Literal("next_start"), t.Literal("not_running")], {
      description: "`next_start`: the running agent gets the provider when it next starts; `not_running`: the next agent starts with it",
    }),
  },
  { additionalProperties: false },
);

export const ProviderIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

const ConfiguredProvider = t.Object(
  {
    providerId: t.String(),
    kind: Kind,
    source: t.Union([t.Literal("api"), t.Literal("device_flow"), t.Literal("env")], {
      description: "`api`: set up through `POST /workspace/auth/provider`; `device_flow`: a sign-in; `env`: its key is in the daemon's environment",
    }),
    models: t.Array(t.String()),
    keyPresent: t.Boolean(),
    expiresAt: t.Optional(t.Number({ description: "A sign-in token's expiry (epoch ms)" })),
    refreshable: t.Optional(t.Boolean({ description: "The sign-in left a refresh token" })),
  },
  { additionalProperties: false },
);

const PendingFlow = t.Object({ deviceFlowId: t.String(), providerId: t.String(), expiresAt: t.Number() }, { additionalProperties: false });

export const AuthStatus = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: t.String(),
    providers: t.Array(ConfiguredProvider, { description: "What is configured, most recent first, then the environment's; no secret" }),
    pendingDeviceFlows: t.Array(PendingFlow),
    supportedDeviceFlowProviders: t.Array(t.String()),
  },
  { additionalProperties: false },
);

export const ProviderCatalog = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: t.String(),
    providers: t.Array(
      t.Object(
        { id: t.String(), label: t.String(), kind: Kind, baseUrl: t.Optional(t.String({ description: "Default base URL; absent for `custom`" })), configured: t.Boolean() },
        { additionalProperties: false },
      ),
    ),
    deviceFlowProviders: t.Array(t.Object({ id: t.String(), label: t.String(), kind: Kind, models: t.Array(t.String()) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const DeviceFlowStartBody = t.Object(
  { providerId: t.String({ minLength: 1, maxLength: 64, description: "One of `supportedDeviceFlowProviders`", error: fail("invalid_request", "`providerId` must be a non-empty string") }) },
  { additionalProperties: true, error: notAnObject },
);

export const DeviceFlowParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

const FlowStatus = t.Union([t.Literal("pending"), t.Literal("authorized"), t.Literal("denied"), t.Literal("expired"), t.Literal("cancelled"), t.Literal("error")]);

const flowMembers = {
  deviceFlowId: t.String(),
  providerId: t.String(),
  status: FlowStatus,
  createdAt: t.Number({ description: "Epoch ms" }),
  expiresAt: t.Number({ description: "Epoch ms: the user must approve before" }),
  intervalMs: t.Number({ description: "The poll interval now (`slow_down` lengthens it)" }),
  polls: t.Number({ description: "Token polls made" }),
  lastPolledAt: t.Optional(t.Number()),
  errorKind: t.Optional(t.Union([t.Literal("access_denied"), t.Literal("expired_token"), t.Literal("upstream_error"), t.Literal("poll_limit"), t.Literal("persist_failed")])),
  hint: t.Optional(t.String()),
  userCode: t.Optional(t.String({ description: "To type at the verification address (the initiator only, while pending)" })),
  verificationUri: t.Optional(t.String()),
  verificationUriComplete: t.Optional(t.String()),
};

export const DeviceFlowState = t.Object(flowMembers, { additionalProperties: false });
export const DeviceFlowStart = t.Object({ ...flowMembers, attached: t.Boolean({ description: "True: a pending flow for the provider already ran; this is it" }) }, { additionalProperties: false });
