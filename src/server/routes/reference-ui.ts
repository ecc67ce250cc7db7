/**
 * The routes the reference daemon's web UI (`@qwen-code/qwen-code` `web-shell/`) reads in a normal
 * session, beyond the core interface:
 *
 *   GET   /brand                              {name, version}                      web_shell_brand
 *   GET   /workspace/settings                 the daemon's effective settings      workspace_settings
 *   GET   /workspace/models                   {models: []}
 *   PATCH /workspace/models                   {key, contextWindowSize} → 409 (strict)
 *
 * and, for features this daemon does not offer, the reference's "none" answer instead of a 404 (its
 * clients read an empty list as a valid state, and cannot tell a 404 from a broken daemon). None of
 * them is advertised by a tag, since the feature is not there:
 *
 *   GET /goals, /session/:id/goal, /scheduled-tasks, /workspaces/:workspace/extensions
 *
 * (the primary workspace's extensions are `extensions.ts`'; per-workspace activation is not offered)
 *
 * `/workspace/models` lists the model configurations a client may edit (the reference's
 * `modelProviders` settings entries, keyed by a hash); this daemon keeps none, so the list is empty
 * and a PATCH naming a key finds nothing to change: 409, the reference's answer to a key it no
 * longer knows. Sessions switch models with `POST /session/:id/model`. Nothing here starts an agent.
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import { workspaceId } from "../../workspace/workspace-id.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { workspaceSettings } from "../workspace-settings.ts";
import {
  BrandReply,
  GoalsReply,
  ModelsPatchBody,
  ModelsPatchReply,
  ModelsReply,
  ScheduledTasksReply,
  SessionGoalReply,
  SettingsReply,
  WorkspaceExtensionsReply,
  WorkspaceParams,
} from "./reference-ui-schemas.ts";
import { SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const errors = errorResponses();
/** 400 `invalid_workspace`, 404 `workspace_not_found`. */
const workspaceErrors = errorResponses({ also: [404] });

const STALE_MODEL_KEY = "Model configuration changed or is ambiguous. Reload and try again.";

export const referenceUiRoutes = (app: RouteApp, deps: AppDeps) => {
  const workspaceOf = (selector: string) => deps.runtimes.resolve(selector).path;

  return app
    .get("/brand", () => ({ name: "svc", version: deps.config.version }), {
      response: { 200: BrandReply, ...errors },
      detail: capability("web_shell_brand", { summary: "The product name and version a web UI shows (no settings, no secrets)" }),
    })
    .get("/workspace/settings", () => workspaceSettings(deps.config), {
      response: { 200: SettingsReply, ...errors },
      detail: capability("workspace_settings", { summary: "The daemon's effective settings (never keys, environment or MCP server definitions)" }),
    })
    .get("/workspace/models", () => ({ models: [] }), {
      response: { 200: ModelsReply, ...errors },
      detail: { summary: "Editable model configurations: none in this daemon (switch a session's model with POST /session/:id/model)" },
    })
    .patch(
      "/workspace/models",
      () => {
        throw new DaemonError(409, null, STALE_MODEL_KEY);
      },
      {
        body: ModelsPatchBody,
        response: { 200: ModelsPatchReply, ...errorResponses({ body: true, also: [409] }) },
        detail: { summary: "Change a model configuration's context window: 409, this daemon has no configuration to change", "x-svc-strict": true },
      },
    )
    .get("/goals", () => ({ v: 1 as const, goals: [], droppedCount: 0 }), {
      response: { 200: GoalsReply, ...errors },
      detail: { summary: "Session goals: none (this daemon does not offer goals)" },
    })
    .get(
      "/session/:id/goal",
      ({ params }) => {
        deps.sessions.get(params.id);
        return { snapshot: { v: 2 as const, goal: null, activity: "idle" as const } };
      },
      {
        params: SessionIdParams,
        response: { 200: SessionGoalReply, ...errorResponses({ also: [404] }) },
        detail: { summary: "A live session's goal: none (this daemon does not offer goals)" },
      },
    )
    .get("/scheduled-tasks", () => ({ v: 1 as const, tasks: [] }), {
      response: { 200: ScheduledTasksReply, ...errors },
      detail: { summary: "Scheduled tasks: none (this daemon does not offer them)" },
    })
    .get(
      "/workspaces/:workspace/extensions",
      async ({ params }) => {
        const workspace = workspaceOf(params.workspace);
        const { workspaceActivations } = await import("../../extensions/index.ts");
        const extensions = workspaceActivations(deps.config.dataDir);
        return { v: 1 as const, workspaceId: workspaceId(workspace), workspaceCwd: workspace, trusted: deps.trust.trusted, desiredGeneration: 0 as const, appliedGeneration: 0 as const, extensions };
      },
      {
        params: WorkspaceParams,
        response: { 200: WorkspaceExtensionsReply, ...workspaceErrors },
        detail: { summary: "The installed extensions and their state in the named workspace (one state each, the user's, in every workspace)" },
      },
    );
};
