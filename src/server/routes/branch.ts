/**
 * Branching a session (`sessions/session-branch.ts`):
 *
 *   POST /session/:id/branch {promptId? | turnIndex?, name?}
 *        → 201 {sessionId, workspaceCwd, clientId, createdAt, displayName, parentSessionId,
 *               parentPromptId?, turnIndex?, branchedBy, forkedFrom: {sessionId, displayName}}
 *
 * A mutation gated as `POST /session` is (not a strict one: it writes no file). 409
 * `branch_while_prompt_active` while the parent runs or queues a prompt or waits on a permission;
 * 400 `branch_point_invalid` for a turn the session lacks; 503 `session_limit_exceeded` at
 * `--max-sessions`; 403 `untrusted_workspace` as for the parent's other routes. The branch is live at once: its
 * `clientId` is registered on it, and its stream and prompts work as a created session's do.
 */
import { t } from "elysia";
import { MAX_BRANCH_NAME_CHARS, SessionBrancher } from "../../sessions/session-branch.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { notAnObject, registeredClient, SessionIdParams, wholeNumber } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const BranchBody = t.Object(
  {
    promptId: t.Optional(t.String({ minLength: 1, maxLength: 512, description: "The parent's last turn the branch holds, by prompt id (a `turnId` of `GET /session/:id/turn-index`); default the latest" })),
    turnIndex: t.Optional(wholeNumber({ minimum: 0, description: "The same by ordinal (0: the first turn), as the turn index numbers them; not with `promptId`" })),
    name: t.Optional(t.String({ maxLength: 4096, description: `The branch's display name (control characters removed, cut to ${MAX_BRANCH_NAME_CHARS} characters); default the parent's with " (branch)"` })),
  },
  { additionalProperties: false, error: notAnObject },
);

const BranchReply = t.Object({
  sessionId: t.String(),
  workspaceCwd: t.String(),
  clientId: t.String({ description: "Registered on the branch for its caller" }),
  createdAt: t.String({ description: "ISO 8601" }),
  displayName: t.String(),
  parentSessionId: t.String(),
  parentPromptId: t.Optional(t.String({ description: "The parent's last turn the branch holds (absent: the parent had no turn)" })),
  turnIndex: t.Optional(wholeNumber({ minimum: 0, description: "That turn's ordinal" })),
  branchedBy: t.Union([t.Literal("fork"), t.Literal("seeded")], {
    description: "`fork`: the agent's own `session/fork`; `seeded`: a new agent session given the conversation up to the turn as text ahead of its first prompt",
  }),
  forkedFrom: t.Object({ sessionId: t.String(), displayName: t.String() }, { description: "The reference daemon's name for the parent link" }),
});

export const branchRoutes = (app: RouteApp, deps: AppDeps) => {
  const brancher = new SessionBrancher(deps.sessions);
  return app.post(
    "/session/:id/branch",
    async ({ params, body, request, set }) => {
      const parent = deps.sessions.get(params.id);
      const clientId = registeredClient(parent, request);
      const result = await brancher.branch(parent, body, clientId);
      set.status = 201;
      return result;
    },
    {
      params: SessionIdParams,
      headers: ClientIdHeaders,
      body: BranchBody,
      response: { 201: BranchReply, ...errorResponses({ body: true, also: [403, 404, 409, 502, 503, 504] }) },
      detail: capability("session_branch", { summary: "A new session that starts from this one's conversation at a turn (default the latest)" }),
    },
  );
};
