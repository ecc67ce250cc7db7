/**
 * Workspace registration and runtime stop (`src/workspace-registry/`), every change strict
 * (401 `token_required` at the front door while no token is configured):
 *
 *   POST   /workspaces                          {cwd, displayName?, persist?} → 201 (200: made persistent)
 *   PATCH  /workspaces/:workspace               {displayName} → 200
 *   DELETE /workspaces/:workspace               {force?, expectedSessionIds?} → 200 removal receipt
 *   GET    /workspace-registrations             the persistent registrations
 *   DELETE /workspace-registrations/:id         forget one
 *   GET    /workspaces/runtime-stop-options     a stop preview of every workspace
 *   POST   /workspaces/:workspace/runtime/stop  the confirmed preview → receipt
 *
 * `:workspace` is a workspace id or an absolute path (URL-encoded), resolved by the registry.
 */
import { t } from "elysia";
import { untrustedWorkspace } from "../../sessions/runtime-registry.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { WorkspaceSelector } from "./history-schemas.ts";
import {
  ForgetAnswer,
  RegisterBody,
  RegistrationIdParams,
  RegistrationList,
  RemovalReceipt,
  RemoveBody,
  StopBody,
  StopOptions,
  StopReceipt,
  UpdateBody,
  WorkspaceView,
} from "./workspace-schemas.ts";
import type { RouteApp } from "./route-app.ts";

const WorkspaceParams = t.Object({ workspace: WorkspaceSelector });

const strict = (tags: string | string[], summary: string) => capability(tags, { summary, "x-svc-strict": true });

export const workspaceRoutes = (app: RouteApp, deps: AppDeps) => {
  const { registrations, stops } = deps.workspaces;
  return app
    .post(
      "/workspaces",
      ({ body, set }) => {
        const { status, view } = registrations.register(body);
        set.status = status;
        return view;
      },
      {
        body: RegisterBody,
        response: { 200: WorkspaceView, 201: WorkspaceView, ...errorResponses({ body: true, also: [409, 501] }) },
        detail: strict(["dynamic_workspace_registration", "persistent_workspace_registration", "workspace_display_name"], "Register a workspace (201), or make a registered one persistent (200)"),
      },
    )
    .get("/workspace-registrations", () => registrations.list(), {
      response: { 200: RegistrationList, ...errorResponses({ also: [501] }) },
      detail: capability("persistent_workspace_registration", { summary: "The persistent workspace registrations of this primary workspace" }),
    })
    .delete("/workspace-registrations/:id", ({ params }) => registrations.forget(params.id), {
      params: RegistrationIdParams,
      response: { 200: ForgetAnswer, ...errorResponses({ also: [404, 501] }) },
      detail: strict("persistent_workspace_registration", "Forget a persistent registration (a workspace served now stays served until restart)"),
    })
    .get("/workspaces/runtime-stop-options", () => stops.options(), {
      response: { 200: StopOptions, ...errorResponses() },
      detail: capability("workspace_runtime_stop", { summary: "Preview what stopping each workspace's agent would end: channel, epoch, one-time token, sessions" }),
    })
    .patch("/workspaces/:workspace", ({ params, body }) => registrations.update(deps.runtimes.resolve(params.workspace), body), {
      params: WorkspaceParams,
      body: UpdateBody,
      response: { 200: WorkspaceView, ...errorResponses({ body: true, also: [404, 409] }) },
      detail: strict("workspace_display_name", "Set or clear a workspace's display name"),
    })
    .delete("/workspaces/:workspace", async ({ params, body }) => await registrations.remove(deps.runtimes.resolve(params.workspace), body?.force === true, body?.expectedSessionIds), {
      params: WorkspaceParams,
      body: RemoveBody,
      response: { 200: RemovalReceipt, ...errorResponses({ body: true, also: [404, 409] }) },
      detail: strict("workspace_runtime_removal", "Remove a registered workspace: its live sessions close (history kept), its agent stops"),
    })
    .post(
      "/workspaces/:workspace/runtime/stop",
      async ({ params, body }) => {
        const scope = deps.runtimes.resolve(params.workspace);
        if (!scope.primary && !scope.trust.trusted) throw untrustedWorkspace(scope);
        return await stops.stop(scope, body);
      },
      {
        params: WorkspaceParams,
        body: StopBody,
        response: { 200: StopReceipt, ...errorResponses({ body: true, also: [404, 409] }) },
        detail: strict("workspace_runtime_stop", "Stop a workspace's agent as previewed: its sessions close (restorable), the child stops; a stale preview is refused"),
      },
    );
};
