/**
 * `createApp(deps)`: the Elysia app with every route, the JSON body parser and the error mapper.
 * No side effects: it neither listens nor reads globals, so tests build as many as they like.
 *
 * The router matches exactly one spelling of each route, the one the front door's gates judge:
 * `strictPath` (no trailing-slash twin) and the path read from the URL like the front door reads it
 * (`standardHostname: false`: from the first `/` after `http://`, whatever the Host's length). The
 * strict routes and rate tiers are then decided on the very path that gets routed.
 */
import { Elysia } from "elysia";
import { Memoirist } from "memoirist";
import type { AppDeps } from "./app-deps.ts";
import { capabilitiesResponder } from "./capabilities-answer.ts";
import { shallowHealth } from "./health-answer.ts";
import { featureTags, routeCapabilities, type RouteDetail } from "./capability.ts";
import { errorResponse } from "./error-response.ts";
import { pathOf } from "./front-door.ts";
import { readJsonBody } from "./json-body.ts";
import { createWebhookGate, webhookAddress, type WebhookGate } from "./security/webhook-auth.ts";
import { authRoutes } from "./routes/auth.ts";
import { capabilitiesRoutes } from "./routes/capabilities.ts";
import { organizationRoutes } from "./routes/organization.ts";
import { generationRoutes } from "./routes/generation.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { WEBHOOK_BODY_LIMITS, channelWebhookRoutes } from "./routes/channel-webhooks.ts";
import { controlRoutes } from "./routes/controls.ts";
import { daemonStatusRoutes } from "./routes/daemon-status.ts";
import { docsRoutes } from "./routes/docs.ts";
import { fileRoutes } from "./routes/files.ts";
import { gitRoutes } from "./routes/git.ts";
import { languageRoutes } from "./routes/language.ts";
import { mcpConfigRoutes } from "./routes/mcp-config.ts";
import { memoryRoutes } from "./routes/memory.ts";
import { extensionRoutes } from "./routes/extensions.ts";
import { agentsRoutes } from "./routes/agents.ts";
import { subagentRoutes } from "./routes/subagents.ts";
import { eventRoutes } from "./routes/events.ts";
import { healthRoutes } from "./routes/health.ts";
import { historyRoutes } from "./routes/history.ts";
import { permissionRoutes } from "./routes/permissions.ts";
import { promptRoutes } from "./routes/prompts.ts";
import { referenceUiRoutes } from "./routes/reference-ui.ts";
import { restoreRoutes } from "./routes/restore.ts";
import { sessionInfoRoutes } from "./routes/session-info.ts";
import { rewindRoutes } from "./routes/rewind.ts";
import { branchRoutes } from "./routes/branch.ts";
import { sessionHookRoutes } from "./routes/session-hooks.ts";
import { sideQuestionRoutes } from "./routes/side-questions.ts";
import { sessionViewRoutes } from "./routes/session-views.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { sessionWorkflowRoutes } from "./routes/session-workflow.ts";
import { trustRoutes } from "./routes/trust.ts";
import { updateRoutes } from "./routes/update.ts";
import { isWebPath, webRoutes } from "./routes/web.ts";
import { workspaceStatusRoutes } from "./routes/workspace-status.ts";
import { workspaceRoutes } from "./routes/workspaces.ts";
import { workspaceSnapshots } from "./workspace-snapshots.ts";
import { apiModels } from "./schemas/api-models.ts";
import type { RouteApp } from "./routes/route-app.ts";
import { ScopeCache } from "./scope-cache.ts";
import type { WorkspaceScope } from "../workspace-registry/workspace-scope.ts";
import { ownPropertiesOnlyIn } from "./schemas/own-properties.ts";
import { uncheckResponses } from "./schemas/response-checks.ts";

export interface BuiltApp {
  readonly app: Elysia;
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** The `features` list of /capabilities. */
  readonly features: readonly string[];
  readonly isStrictRoute: (method: string, path: string) => boolean;
  /**
   * Query-less GETs whose answer is a constant (`/health`, `/capabilities`): the front door serves
   * them without entering the router, the hottest paths of a daemon that launchers poll.
   */
  readonly constantGets: ReadonlyMap<string, () => Response>;
  /** GET/HEAD paths served without a bearer: the web UI's shell and assets (routes/web.ts), when mounted. */
  readonly isPublicGet: (path: string) => boolean;
  /** Judges `POST /channels/:channelName/webhooks/:source` by its source's secret, in the bearer's place. */
  readonly webhookGate: WebhookGate;
}

export function createApp(deps: AppDeps): BuiltApp {
  let features: string[] = [];
  let root: Elysia | null = null;
  const capabilities = capabilitiesResponder(deps.config, () => features, () =>
    deps.runtimes.scopes().map((s) => ({ id: s.id, cwd: s.path, ...(s.displayName === null ? {} : { displayName: s.displayName }), primary: s.primary, trusted: s.trust.trusted, removable: !s.primary })),
  );
  // Each served workspace's status snapshots, built on first use; the primary's are also the daemon status's.
  const snapshotCache = new ScopeCache(deps.runtimes, (scope) => workspaceSnapshots(deps, scope));
  const snapshotsOf = (scope: WorkspaceScope) => snapshotCache.get(scope);
  const snapshots = snapshotsOf(deps.runtimes.primaryScope);
  // Bodies are normalised with TypeBox (`Value.Clean`: members a schema does not define are
  // dropped), not Elysia's default mirror, which turns a body of the wrong type into an object that
  // passes (`[1,2]` → `{"0":1,"1":2}`, `123` → `{}`) and so lets it through.
  const app = new Elysia({ name: "svc", normalize: "typebox", strictPath: true, handler: { standardHostname: false } })
    // Every body, whatever its Content-Type, is read here, within the same bounds (json-body.ts);
    // a channel webhook's, a stranger's, within a smaller byte cap.
    .onParse(({ request }) => readJsonBody(request, webhookAddress(pathOf(request.url)) === null ? undefined : WEBHOOK_BODY_LIMITS))
    .onError(({ code, error }) => errorResponse(code, error, deps.logger))
    .use(apiModels);
  // Every route is added to the root itself, once (routes/route-app.ts); the route modules know it by its models.
  const routed = app as unknown as RouteApp;
  healthRoutes(routed, deps);
  capabilitiesRoutes(routed, capabilities);
  daemonStatusRoutes(routed, deps, snapshots);
  fileRoutes(routed, deps);
  sessionRoutes(routed, deps);
  sessionInfoRoutes(routed, deps);
  sessionViewRoutes(routed, deps);
  sessionHookRoutes(routed, deps);
  rewindRoutes(routed, deps);
  branchRoutes(routed, deps);
  historyRoutes(routed, deps);
  restoreRoutes(routed, deps);
  catalogRoutes(routed, deps);
  organizationRoutes(routed, deps);
  generationRoutes(routed, deps);
  sideQuestionRoutes(routed, deps);
  promptRoutes(routed, deps);
  eventRoutes(routed, deps);
  permissionRoutes(routed, deps);
  workspaceStatusRoutes(routed, deps, snapshotsOf);
  referenceUiRoutes(routed, deps);
  controlRoutes(routed, deps);
  trustRoutes(routed, deps);
  authRoutes(routed, deps);
  updateRoutes(routed, deps);
  gitRoutes(routed, deps);
  memoryRoutes(routed, deps);
  mcpConfigRoutes(routed, deps);
  extensionRoutes(routed, deps);
  agentsRoutes(routed, deps);
  subagentRoutes(routed, deps);
  languageRoutes(routed, deps);
  workspaceRoutes(routed, deps);
  channelWebhookRoutes(routed, deps);
  sessionWorkflowRoutes(routed, deps);
  docsRoutes(routed, deps.config.version, () => root!);
  if (deps.config.web) webRoutes(routed);

  root = app as unknown as Elysia;
  const routes = app.routes as unknown as { method: string; path: string; hooks?: { detail?: RouteDetail; body?: unknown; query?: unknown; params?: unknown; headers?: unknown; response?: unknown } }[];
  uncheckResponses(routes);
  // A member named like an Object.prototype member is as undeclared as any other (own-properties.ts).
  ownPropertiesOnlyIn(routes);
  features = featureTags(routeCapabilities(routes), deps.config);

  const strict = new Memoirist<true>();
  for (const route of routes) if (route.hooks?.detail?.["x-svc-strict"]) strict.add(route.method, route.path, true);

  return {
    app: root,
    fetch: app.fetch,
    features,
    isStrictRoute: (method, path) => strict.find(method, path) !== null,
    isPublicGet: deps.config.web ? isWebPath : () => false,
    webhookGate: createWebhookGate(deps.config.settings.channels),
    constantGets: new Map([
      ["/health", shallowHealth],
      ["/capabilities", capabilities],
    ]),
  };
}
