/**
 * Model providers and device-flow sign-in (the reference's `/workspace/auth/*`), the auth
 * subsystem (`src/auth/`) loaded on first use:
 *
 *   GET    /workspace/auth/status             → what is configured (no secret), pending flows
 *   GET    /workspace/auth/providers          → the providers that can be set up
 *   POST   /workspace/auth/provider           {providerId, kind?, baseUrl?, models, apiKey} → stored (strict)
 *   DELETE /workspace/auth/provider/:id       → 204, removed with its key (strict)
 *   POST   /workspace/auth/device-flow        {providerId} → 201 started | 200 attached (strict)
 *   GET    /workspace/auth/device-flow/:id    → the flow
 *   DELETE /workspace/auth/device-flow/:id    → 204 cancelled (strict)
 *
 * The strict gate judges mutations only; a flow exists only once a strict POST (so a token) started
 * it, and only its initiator reads its codes.
 *
 * A stored provider reaches the built-in agent at its next start (it has no control method to take
 * one live); `runtimeSync` says which applies.
 */
import type { AuthService } from "../../auth/index.ts";
import { CLIENT_ID_HEADER } from "../../sessions/client-ids.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { loadAuth } from "../lazy-seams.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { t } from "elysia";
import {
  AuthStatus,
  DeviceFlowParams,
  DeviceFlowStart,
  DeviceFlowStartBody,
  DeviceFlowState,
  ProviderCatalog,
  ProviderIdParams,
  ProviderInstallAnswer,
  ProviderInstallBody,
} from "./auth-schemas.ts";
import type { RouteApp } from "./route-app.ts";

const PROVIDERS = "auth_provider_install";
const FLOWS = "auth_device_flow";

export const authRoutes = (app: RouteApp, deps: AppDeps) => {
  let service: Promise<AuthService> | null = null;
  const auth = () =>
    (service ??= loadAuth().then((m) => m.createAuth({ dataDir: deps.config.dataDir, workspace: deps.config.workspace, env: deps.config.agent.baseEnv, logger: deps.logger })));
  const caller = (request: Request) => request.headers.get(CLIENT_ID_HEADER) ?? undefined;
  return app
    .get("/workspace/auth/status", async () => (await auth()).status(), {
      response: { 200: AuthStatus, ...errorResponses() },
      detail: capability([FLOWS, PROVIDERS], { summary: "What model providers are configured and from where (no secret), and the pending sign-ins" }),
    })
    .get("/workspace/auth/providers", async () => (await auth()).catalog(), {
      response: { 200: ProviderCatalog, ...errorResponses() },
      detail: capability(PROVIDERS, { summary: "The model providers that can be set up, and the device-flow sign-ins" }),
    })
    .post(
      "/workspace/auth/provider",
      async ({ body }) => {
        const result = (await auth()).install(body);
        return { ...result, runtimeSync: deps.runtimes.primary.pid === null ? ("not_running" as const) : ("next_start" as const) };
      },
      {
        body: ProviderInstallBody,
        response: { 200: ProviderInstallAnswer, ...errorResponses({ body: true, also: [409] }) },
        detail: capability(PROVIDERS, { summary: "Set up a model provider; its key goes to the 0600 credentials file and is never returned", "x-svc-strict": true }),
      },
    )
    .delete(
      "/workspace/auth/provider/:id",
      async ({ params, set }) => {
        (await auth()).remove(params.id);
        set.status = 204;
        return null;
      },
      {
        params: ProviderIdParams,
        response: { 204: t.Null({ description: "removed" }), ...errorResponses({ also: [404] }) },
        detail: capability(PROVIDERS, { summary: "Remove a stored provider and its key or tokens", "x-svc-strict": true }),
      },
    )
    .post(
      "/workspace/auth/device-flow",
      async ({ body, request, set }) => {
        const { view, attached } = await (await auth()).flows.start(body.providerId, caller(request));
        set.status = attached ? 200 : 201;
        return { ...view, attached };
      },
      {
        body: DeviceFlowStartBody,
        headers: ClientIdHeaders,
        response: { 200: DeviceFlowStart, 201: DeviceFlowStart, ...errorResponses({ body: true, also: [409, 502] }) },
        detail: capability(FLOWS, { summary: "Start an OAuth device-flow sign-in (RFC 8628), or attach to the provider's pending one", "x-svc-strict": true }),
      },
    )
    .get("/workspace/auth/device-flow/:id", async ({ params, request }) => (await auth()).flows.get(params.id, caller(request)), {
      params: DeviceFlowParams,
      headers: ClientIdHeaders,
      response: { 200: DeviceFlowState, ...errorResponses({ also: [404] }) },
      detail: capability(FLOWS, { summary: "A sign-in's state; its user code and address for its initiator only" }),
    })
    .delete(
      "/workspace/auth/device-flow/:id",
      async ({ params, set }) => {
        (await auth()).flows.cancel(params.id);
        set.status = 204;
        return null;
      },
      {
        params: DeviceFlowParams,
        response: { 204: t.Null({ description: "cancelled (a finished flow stays as it ended)" }), ...errorResponses({ also: [404] }) },
        detail: capability(FLOWS, { summary: "Cancel a pending sign-in", "x-svc-strict": true }),
      },
    );
};
