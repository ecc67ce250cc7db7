/**
 * Two session controls of the interface that no agent svc runs can carry out yet, answered
 * truthfully rather than left to 404:
 * - `POST /session/:id/worktree-reset` resets a session that runs in a git worktree of its
 *   workspace. svc starts no session in a worktree, so every session is a non-worktree session:
 *   409 `worktree_reset_unsupported`, the reference's answer for one (a virtual subagent session: 400
 *   `unsupported_action`, like the reference). The tag `session_worktree_reset_v1` is not advertised.
 * - `POST /session/:id/tasks/:taskId/workflow-action` controls a workflow task of the agent
 *   (qwen-code's workflows). The built-in agent runs no workflow tasks (its `/tasks` view is always
 *   empty) and svc forwards the control to no other agent: after the body is checked, 501
 *   `agent_unsupported` with the reason. A strict mutation route, like the reference's.
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import type { AppDeps } from "../app-deps.ts";
import { apiModelNames } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { openObject } from "../schemas/open-object.ts";
import { SessionIdParams } from "./session-params.ts";

const SUBAGENT_PREFIX = "subagent.";

export const WORKFLOW_ACTIONS = ["pause", "resume", "retry", "rerun", "delete-history", "run-saved", "run-script"] as const;

const invalidAction = () => new DaemonError(400, "invalid_request", `\`action\` must be one of ${WORKFLOW_ACTIONS.map((a) => `"${a}"`).join(", ")}`).body();

const WorkflowActionBody = t.Object(
  { action: t.Union(WORKFLOW_ACTIONS.map((a) => t.Literal(a)), { error: invalidAction, description: "what to do with the task" }) },
  { additionalProperties: true, error: invalidAction, description: "`action`, and the action's own inputs (`run-saved`, `run-script`)" },
);

const WorktreeResetBody = t.Object({}, { additionalProperties: true, description: "the reference's restore options (`approvalMode`, `modelServiceId`, …); none applies while no session runs in a worktree" });

/** The interface's answer to a reset (the replacement session in a fresh worktree); svc gives it to no session yet. */
const WorktreeReset = openObject(
  {
    sessionId: t.String(),
    workspaceCwd: t.String(),
    currentCwd: t.String(),
    worktree: t.Object({ slug: t.String(), path: t.String(), branch: t.String() }),
    worktreeState: t.Literal("persisted-v1"),
  },
  { description: "the replacement session, in a fresh worktree (not answered by this build: no session runs in a worktree)" },
);

/** The interface's answer to a workflow action; svc gives it to no task yet. */
const WorkflowActionResult = openObject({ changed: t.Boolean() }, { description: "whether the task changed (not answered by this build: no agent it runs has workflow tasks)" });

export const sessionWorkflowRoutes = (deps: AppDeps) =>
  new Elysia({ name: "routes/session-workflow" })
    .use(apiModelNames)
    .post(
      "/session/:id/worktree-reset",
      ({ params }) => {
        if (params.id.startsWith(SUBAGENT_PREFIX))
          throw new DaemonError(400, "unsupported_action", "Virtual subagent sessions do not support worktree reset", { sessionId: params.id });
        const session = deps.sessions.get(params.id);
        throw new DaemonError(409, "worktree_reset_unsupported", `Session ${session.id} is not a worktree session`, { sessionId: session.id });
      },
      {
        params: SessionIdParams,
        body: WorktreeResetBody,
        response: { 200: WorktreeReset, ...errorResponses({ body: true, also: [404, 409] }) },
        detail: { summary: "Reset a worktree session's worktree (svc starts no worktree sessions: 409 worktree_reset_unsupported)" },
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
