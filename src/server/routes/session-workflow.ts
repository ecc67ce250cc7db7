/**
 * Two session controls of the interface:
 * - `POST /session/:id/worktree-reset` replaces a session that runs in a git worktree of its
 *   workspace (`POST /session` with `worktree`) by a fresh session in the same checkout
 *   (`sessions/worktree-reset.ts`); a session outside a worktree is 409 `worktree_reset_unsupported`,
 *   a virtual subagent session 400 `unsupported_action`, like the reference.
 * - `POST /session/:id/tasks/:taskId/workflow-action` controls a workflow task of the agent
 *   (qwen-code's workflows). The built-in agent runs no workflow tasks (its `/tasks` view is always
 *   empty) and svc forwards the control to no other agent: after the body is checked, 501
 *   `agent_unsupported` with the reason. A strict mutation route, like the reference's.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { MAX_SOURCE_ID_LENGTH, SOURCE_TYPE_PATTERN } from "../../sessions/session-source.ts";
import { WorktreeResets } from "../../sessions/worktree-reset.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { openObject } from "../schemas/open-object.ts";
import { SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const SUBAGENT_PREFIX = "subagent.";

export const WORKFLOW_ACTIONS = ["pause", "resume", "retry", "rerun", "delete-history", "run-saved", "run-script"] as const;

const invalidAction = () => new DaemonError(400, "invalid_request", `\`action\` must be one of ${WORKFLOW_ACTIONS.map((a) => `"${a}"`).join(", ")}`).body();

const WorkflowActionBody = t.Object(
  { action: t.Union(WORKFLOW_ACTIONS.map((a) => t.Literal(a)), { error: invalidAction, description: "what to do with the task" }) },
  { additionalProperties: true, error: invalidAction, description: "`action`, and the action's own inputs (`run-saved`, `run-script`)" },
);

const WorktreeResetBody = t.Object(
  {
    modelServiceId: t.Optional(t.String({ minLength: 1, maxLength: 512, description: "the replacement's model" })),
    sourceType: t.Optional(t.String({ pattern: SOURCE_TYPE_PATTERN, description: "the replacement's source (as on `POST /session`)" })),
    sourceId: t.Optional(t.String({ minLength: 1, maxLength: MAX_SOURCE_ID_LENGTH })),
  },
  { additionalProperties: true, description: "options for the replacement session, as on `POST /session`" },
);

/** The replacement session, in the same worktree (as `POST /session` answers a new one). */
const WorktreeReset = openObject(
  {
    sessionId: t.String(),
    workspaceCwd: t.String(),
    attached: t.Boolean(),
    clientId: t.String(),
    currentCwd: t.String(),
    worktree: t.Object({ slug: t.String(), path: t.String(), branch: t.String() }),
    worktreeState: t.Literal("persisted-v1"),
  },
  { description: "the replacement session, a new conversation in the same worktree checkout and branch" },
);

/** The interface's answer to a workflow action; svc gives it to no task yet. */
const WorkflowActionResult = openObject({ changed: t.Boolean() }, { description: "whether the task changed (not answered by this build: no agent it runs has workflow tasks)" });

export const sessionWorkflowRoutes = (app: RouteApp, deps: AppDeps) => {
  const resets = new WorktreeResets({ sessions: deps.sessions, runtimes: deps.runtimes, store: deps.sessions.store });
  return app
    .post(
      "/session/:id/worktree-reset",
      async ({ params, body }) => {
        if (params.id.startsWith(SUBAGENT_PREFIX))
          throw new DaemonError(400, "unsupported_action", "Virtual subagent sessions do not support worktree reset", { sessionId: params.id });
        return await resets.reset(params.id, body);
      },
      {
        params: SessionIdParams,
        body: WorktreeResetBody,
        response: { 200: WorktreeReset, ...errorResponses({ body: true, also: [403, 404, 409, 502, 504] }) },
        detail: capability("session_worktree_reset_v1", {
          summary: "Replace a worktree session by a fresh session in the same worktree (409 worktree_reset_unsupported outside one)",
        }),
      },
    )
    .post(
      "/session/:id/tasks/:taskId/workflow-action",
      ({ params, body }) => {
        const session = deps.sessions.get(params.id);
        throw new DaemonError(501, "agent_unsupported", "svc forwards no workflow-task controls: the built-in agent runs no workflow tasks, and no other agent's workflow control is wired", {
          sessionId: session.id,
          taskId: params.taskId,
          action: body.action,
        });
      },
      {
        params: t.Object({ id: SessionIdParams.properties.id, taskId: t.String({ minLength: 1, maxLength: 512 }) }),
        body: WorkflowActionBody,
        response: { 200: WorkflowActionResult, ...errorResponses({ body: true, also: [404, 501] }) },
        detail: { summary: "Control a workflow task (no agent svc runs has workflow tasks: 501 agent_unsupported)", "x-svc-strict": true },
      },
    );
};
