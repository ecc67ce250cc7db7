/**
 * `GET /workspace/{env,preflight,mcp,runtime/mcp,skills,providers,tools,hooks}` (the primary workspace) and
 * `GET /workspaces/:workspace/{…}` (the named one, `workspace-forms.ts`): the snapshots of
 * `workspace-snapshots.ts`, the workspace's own. None starts an agent child; an agent that fails or is slow shows in the
 * envelope's `errors`, never as an error status. `/workspace/tools` carries no capability tag: the
 * spec's route table gives it none, and its Versioning list names no tag for it (the tag
 * `workspace_tool_toggle` is its mutation route's); inventing one would advertise a name no client
 * gates on, so it stays untagged, reachable on every daemon of this version.
 */
import { type Static } from "elysia";
import type { WorkspaceScope } from "../../workspace-registry/workspace-scope.ts";
import type { AppDeps } from "../app-deps.ts";
import { WORKSPACE_CELLS } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { WorkspaceCells } from "../schemas/workspace-cells.ts";
import type { SectionName, SnapshotSource } from "../workspace-snapshots.ts";
import { HooksSnapshot } from "./hooks-schemas.ts";
import { McpSnapshot, ProvidersSnapshot, SkillsSnapshot, ToolsSnapshot } from "./workspace-status-schemas.ts";
import { workspaceForms, type WorkspaceForm } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

export const workspaceStatusRoutes = (app: RouteApp, deps: AppDeps, snapshotsOf: (scope: WorkspaceScope) => readonly SnapshotSource[]) => {
  for (const form of workspaceForms(deps.runtimes)) formRoutes(app, form, snapshotsOf);
  return app;
};

function formRoutes(app: RouteApp, form: WorkspaceForm, snapshotsOf: (scope: WorkspaceScope) => readonly SnapshotSource[]) {
  const errors = errorResponses({ also: form.also });
  const at = (rest: string) => form.path("/workspace", rest);
  /** The section's snapshot of the form's workspace, typed as the route's schema: the builders assemble exactly those members. */
  const read =
    <T>(name: SectionName) =>
    ({ params }: { params: unknown }) =>
      snapshotsOf(form.scope(params)).find((s) => s.name === name)!.read() as Promise<T>;

  return app
    .get(at("/env"), read<Static<typeof WorkspaceCells>>("env"), {
      ...form.hooks,
      response: { 200: WORKSPACE_CELLS, ...errors },
      detail: form.detail("workspace_env", "Runtime, platform, proxy and secret-presence cells"),
    })
    .get(at("/preflight"), read<Static<typeof WorkspaceCells>>("preflight"), {
      ...form.hooks,
      response: { 200: WORKSPACE_CELLS, ...errors },
      detail: form.detail("workspace_preflight", "Readiness checks of the daemon, then the live agent's own"),
    })
    .get(at("/mcp"), read<Static<typeof McpSnapshot>>("mcp"), {
      ...form.hooks,
      response: { 200: McpSnapshot, ...errors },
      detail: form.detail("workspace_mcp", "MCP servers and client budgets, as the live agent reports them"),
    })
    // The reference's runtime view of the same servers (`/workspace/runtime/mcp`): the live agent's snapshot.
    .get(at("/runtime/mcp"), read<Static<typeof McpSnapshot>>("mcp"), {
      ...form.hooks,
      response: { 200: McpSnapshot, ...errors },
      detail: form.detail("workspace_mcp", "The MCP servers as the live agent runs them (the snapshot of /workspace/mcp)"),
    })
    .get(at("/skills"), read<Static<typeof SkillsSnapshot>>("skills"), {
      ...form.hooks,
      response: { 200: SkillsSnapshot, ...errors },
      detail: form.detail("workspace_skills", "Skills the live agent offers (never their bodies or paths)"),
    })
    .get(at("/providers"), read<Static<typeof ProvidersSnapshot>>("providers"), {
      ...form.hooks,
      response: { 200: ProvidersSnapshot, ...errors },
      detail: form.detail("workspace_providers", "Model providers and models, grouped by auth type (never keys or addresses)"),
    })
    .get(at("/hooks"), read<Static<typeof HooksSnapshot>>("hooks"), {
      ...form.hooks,
      response: { 200: HooksSnapshot, ...errors },
      detail: form.detail("workspace_hooks", "Hooks of the settings files, and whether each runs (never their commands)"),
    })
    .get(at("/tools"), read<Static<typeof ToolsSnapshot>>("tools"), {
      ...form.hooks,
      response: { 200: ToolsSnapshot, ...errors },
      detail: form.detail([], "Tools the live agent registers, and whether each is enabled"),
    });
}
