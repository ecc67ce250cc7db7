/**
 * `GET /session/:id/subagents/:subagentRef`: a subagent run of a session (live or persisted), read
 * back from its journal (`sessions/subagent-view.ts`). The reference daemon's answer plus the
 * nested `events`; no agent is asked.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { SessionHistory } from "../../sessions/session-history.ts";
import { MAX_SUBAGENT_REF_LENGTH, subagentView } from "../../sessions/subagent-view.ts";
import type { AppDeps } from "../app-deps.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import type { RouteApp } from "./route-app.ts";

const count = () => t.Optional(Type.Integer({ minimum: 0 }));

const SubagentSession = t.Object(
  {
    sessionId: t.String({ description: "The virtual `subagent.<base64url session id>.<base64url ref>` id" }),
    taskId: t.String({ description: "The starting tool call's id (the ref)" }),
    title: t.Optional(t.String()),
    status: t.Union([t.Literal("running"), t.Literal("completed"), t.Literal("failed"), t.Literal("cancelled")]),
    durationMs: count(),
    totalTokens: count(),
    inputTokens: count(),
    outputTokens: count(),
    events: t.Array(t.Unknown({ description: "A journaled `session_update` envelope whose update carries `_meta.parentToolCallId` = the ref" })),
    truncated: t.Boolean({ description: "true when events past the answer's byte bound were left out" }),
  },
  { additionalProperties: false },
);

export const subagentRoutes = (app: RouteApp, deps: AppDeps) => {
  const history = new SessionHistory(deps.sessions, deps.sessions.store);
  return app
    .get("/session/:id/subagents/:subagentRef", ({ params, set }) => {
      set.headers["cache-control"] = "no-store";
      return subagentView(history, params.id, params.subagentRef);
    }, {
      params: t.Object({ id: t.String({ minLength: 1, maxLength: 512 }), subagentRef: t.String({ maxLength: MAX_SUBAGENT_REF_LENGTH * 4 }) }),
      response: { 200: SubagentSession, ...errorResponses({ also: [400, 404, 413] }) },
      detail: { summary: "A subagent run of the session (the tool call that started it), with its nested updates from the journal" },
    });
};
