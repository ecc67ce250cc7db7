/**
 * The extension routes (`src/extensions/`, loaded on first use), in the reference daemon's shapes:
 *
 *   GET    /workspace/extensions                          the installed extensions
 *   GET    /workspace/extensions/operations               the operations not finished
 *   GET    /workspace/extensions/operations/:operationId  one operation (404 once forgotten)
 *   POST   /workspace/extensions/install   {source, consent: true}  → 202 {accepted, operationId}
 *   POST   /workspace/extensions/:name/enable | /disable            → 202 {accepted, operationId}
 *   DELETE /workspace/extensions/:name                              → 202 {accepted, operationId}
 *   POST   /workspace/extensions/refresh                            → {refreshed, failed}
 *
 * The changes are strict and refused in an untrusted workspace (403 `untrusted_workspace`); a
 * 202 carries `Location` and `Retry-After: 1` as the reference's. After a change the live built-in
 * agent reloads its MCP servers (it reads skills and instruction files at each turn anyway), and
 * the workspace's live sessions get `extensions_changed {status, name?, source?, refreshed, failed,
 * error?}`.
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import { refreshSkills, reloadMcp } from "../../runtime/profile-controls.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { AcceptedReply, ActivationBody, ExtensionNameParams, ExtensionOperation, ExtensionsReply, InstallBody, OperationParams, OperationsReply, RefreshReply } from "./extension-schemas.ts";
import type { RouteApp } from "./route-app.ts";

type ExtensionsModule = typeof import("../../extensions/index.ts");
const TAG = "workspace_extensions";

export const extensionRoutes = (app: RouteApp, deps: AppDeps) => {
  const runtime = deps.runtimes.primary;
  let service: Promise<InstanceType<ExtensionsModule["ExtensionService"]>> | null = null;
  const load = () =>
    (service ??= import("../../extensions/index.ts").then(
      ({ ExtensionService }) =>
        new ExtensionService({
          dataDir: deps.config.dataDir,
          workspace: runtime.cwd,
          registry: deps.config.npmRegistry,
          refresh: async () => {
            const live = await runtime.settled();
            if (!live || live.profile.extensionPrefix !== "svc") return null;
            await reloadMcp(live, runtime.cwd, {});
            const { sessionsRefreshed, sessionsFailed } = await refreshSkills(live, runtime.cwd);
            return { refreshed: sessionsRefreshed, failed: sessionsFailed };
          },
          publish: (data) => {
            for (const session of deps.sessions.all()) if (session.runtime === runtime && !session.isEnded) session.publish("extensions_changed", { ...data });
          },
        }),
    ));
  const trusted = () => {
    if (!deps.trust.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
  };
  const accepted = (set: { status?: number | string; headers: Record<string, string | number> }, op: { operationId: string }) => {
    set.status = 202;
    set.headers["location"] = `/workspace/extensions/operations/${op.operationId}`;
    set.headers["retry-after"] = "1";
    return { accepted: true as const, operationId: op.operationId };
  };
  const strict = (summary: string) => capability(TAG, { summary, "x-svc-strict": true });

  return app
    .get("/workspace/extensions", async () => (await load()).status(), {
      response: { 200: ExtensionsReply, ...errorResponses() },
      detail: capability(TAG, { summary: "The installed extensions (qwen-extension.json), enabled or not, with what each brings" }),
    })
    .get("/workspace/extensions/operations", async () => ({ v: 1 as const, operations: (await load()).activeOperations() }), {
      response: { 200: OperationsReply, ...errorResponses() },
      detail: capability(TAG, { summary: "The extension operations queued or running" }),
    })
    .get("/workspace/extensions/operations/:operationId", async ({ params }) => (await load()).operation(params.operationId), {
      params: OperationParams,
      response: { 200: ExtensionOperation, ...errorResponses({ also: [404] }) },
      detail: capability(TAG, { summary: "One extension operation (kept a while after it finished)" }),
    })
    .post(
      "/workspace/extensions/install",
      async ({ body, set }) => {
        trusted();
        return accepted(set, (await load()).install(body.source));
      },
      {
        body: InstallBody,
        response: { 202: AcceptedReply, ...errorResponses({ body: true, also: [403, 422, 429] }) },
        detail: strict("Install an extension from a local folder (copied under the data dir; nothing in it runs); a registry package is 422"),
      },
    )
    .post(
      "/workspace/extensions/refresh",
      async () => {
        trusted();
        return await (await load()).refresh();
      },
      {
        response: { 200: RefreshReply, ...errorResponses({ also: [403, 502, 504] }) },
        detail: strict("Have the live built-in agent take the extensions as they are now"),
      },
    )
    .post(
      "/workspace/extensions/:name/enable",
      async ({ params, set }) => {
        trusted();
        return accepted(set, (await load()).setActive(params.name, true));
      },
      {
        params: ExtensionNameParams,
        body: ActivationBody,
        response: { 202: AcceptedReply, ...errorResponses({ body: true, also: [403, 404, 429] }) },
        detail: strict("Enable an installed extension"),
      },
    )
    .post(
      "/workspace/extensions/:name/disable",
      async ({ params, set }) => {
        trusted();
        return accepted(set, (await load()).setActive(params.name, false));
      },
      {
        params: ExtensionNameParams,
        body: ActivationBody,
        response: { 202: AcceptedReply, ...errorResponses({ body: true, also: [403, 404, 429] }) },
        detail: strict("Disable an installed extension (kept installed)"),
      },
    )
    .delete(
      "/workspace/extensions/:name",
      async ({ params, set }) => {
        trusted();
        return accepted(set, (await load()).uninstall(params.name));
      },
      {
        params: ExtensionNameParams,
        response: { 202: AcceptedReply, ...errorResponses({ also: [403, 404, 429] }) },
        detail: strict("Uninstall an extension"),
      },
    );
};
