/**
 * MCP server management (`workspace_mcp_manage`), the reference daemon's routes and shapes:
 *
 *   GET    /workspace/config/mcp/servers                  → {v, effective, user, workspace} (secrets redacted)
 *   PUT    /workspace/config/mcp/servers/:name            {scope: "user", config} → {name, scope, config, activation}
 *   DELETE /workspace/config/mcp/servers/:name?scope=user → {name, scope, activation}
 *   POST   /workspace/config/mcp/:server/enable|disable   → {serverName, action, ok, changed, activation}
 *
 * and the same under `/workspaces/:workspace/` with scope `workspace` (that workspace's settings
 * file; trusted workspaces only, 403 `untrusted_workspace` otherwise). Mutations are strict (401
 * `token_required` without a bearer token). The work is `sessions/mcp-config.ts`', loaded on first use.
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import type { McpConfig } from "../../sessions/mcp-config.ts";
import type { parseServerEntry } from "../../workspace/mcp-server-settings.ts";
import type { AppDeps } from "../app-deps.ts";
import { errorResponses, type ErrorStatus } from "../schemas/error-statuses.ts";
import { McpConfigStatus, McpDeleteAnswer, McpDeleteQuery, McpPutAnswer, McpPutBody, McpToggleAnswer, nameParams, serverParams } from "./mcp-config-schemas.ts";
import { workspaceForms, type WorkspaceForm } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

const TAG = "workspace_mcp_manage";

interface Loaded {
  readonly config: McpConfig;
  readonly parse: typeof parseServerEntry;
}

const wrongScope = (scope: string) => new DaemonError(400, "invalid_scope", `scope must be ${scope}`);

export const mcpConfigRoutes = (app: RouteApp, deps: AppDeps) => {
  let loaded: Promise<Loaded> | null = null;
  const load = () =>
    (loaded ??= Promise.all([import("../../sessions/mcp-config.ts"), import("../../workspace/mcp-server-settings.ts")]).then(([{ McpConfig }, { parseServerEntry }]) => ({
      config: new McpConfig({ dataDir: deps.config.dataDir, scopes: () => deps.runtimes.scopes(), budget: deps.config.mcp, logger: deps.logger }),
      parse: parseServerEntry,
    })));
  for (const form of workspaceForms(deps.runtimes)) formRoutes(app, form, load);
  return app;
};

function formRoutes(app: RouteApp, form: WorkspaceForm, load: () => Promise<Loaded>) {
  const scope = form.qualified ? "workspace" : "user";
  const where = scope === "user" ? "host" : "workspace";
  const base = form.path("/workspace", "/config/mcp");
  const strict = (summary: string) => form.detail(TAG, summary, { "x-svc-strict": true });
  const also: ErrorStatus[] = [...form.also, 403, 409];
  const toggle = (enabled: boolean) => async ({ params }: { params: { server: string } }) => (await load()).config.toggle(form.scope(params), scope, params.server, enabled);
  return app
    .get(`${base}/servers`, async ({ params }) => (await load()).config.status(form.scope(params)), {
      ...form.hooks,
      response: { 200: McpConfigStatus, ...errorResponses({ also: form.also }) },
      detail: form.detail(TAG, "The MCP server declarations: the host's, the workspace's and those in force (env and header values redacted)"),
    })
    .put(
      `${base}/servers/:name`,
      async ({ params, body }) => {
        if (body.scope !== scope) throw wrongScope(scope);
        const { config, parse } = await load();
        return await config.put(form.scope(params), scope, params.name, parse(body.config));
      },
      {
        params: nameParams(form.qualified),
        body: McpPutBody,
        response: { 200: McpPutAnswer, ...errorResponses({ body: true, also }) },
        detail: strict(`Add or replace an MCP server in the ${where} settings (atomic; a secret sent as \`__redacted__\` keeps its stored value)`),
      },
    )
    .delete(
      `${base}/servers/:name`,
      async ({ params, query }) => {
        if (query.scope !== scope) throw wrongScope(scope);
        return await (await load()).config.remove(form.scope(params), scope, params.name);
      },
      {
        params: nameParams(form.qualified),
        query: McpDeleteQuery,
        response: { 200: McpDeleteAnswer, ...errorResponses({ also: [400, ...also] }) },
        detail: strict(`Remove an MCP server from the ${where} settings`),
      },
    )
    .post(`${base}/:server/enable`, toggle(true), {
      params: serverParams(form.qualified),
      response: { 200: McpToggleAnswer, ...errorResponses({ also: [400, ...also] }) },
      detail: strict(`Enable an MCP server (drop it from \`mcp.excluded\` of the ${where} settings)`),
    })
    .post(`${base}/:server/disable`, toggle(false), {
      params: serverParams(form.qualified),
      response: { 200: McpToggleAnswer, ...errorResponses({ also: [400, ...also] }) },
      detail: strict(`Disable an MCP server (add it to \`mcp.excluded\` of the ${where} settings)`),
    });
}
