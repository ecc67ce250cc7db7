/**
 * Read-only session views: status, context and supported commands.
 * Virtual `subagent.` ids resolve against the primary runtime and have an empty state.
 */
import { t } from "elysia";
import { sessionNotFound } from "../../sessions/session-errors.ts";
import { sessionSummary } from "../../sessions/session-summary.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { SESSION_SUMMARY } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { openObject } from "../schemas/open-object.ts";
import { SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const SUBAGENT_PREFIX = "subagent.";

/**
 * The agent's own context document when it offers one (its members pass through), else the state
 * the daemon holds: `models`, `modes` and `configOptions` as the agent last reported them.
 */
const SessionContext = openObject({
  v: t.Literal(1),
  sessionId: t.String(),
  workspaceCwd: t.String(),
  state: t.Optional(t.Record(t.String(), t.Unknown())),
});

const SupportedCommands = t.Object({
  v: t.Literal(1),
  sessionId: t.String(),
  availableCommands: t.Array(t.Unknown({ description: "an ACP available command, as the agent sent it" })),
  availableSkills: t.Array(t.String(), { description: "names of the skills the agent offers in this session (empty when it reports none)" }),
});



/** 404 unknown session, and the agent's errors where the answer asks the agent. */
const fromAgent = errorResponses({ also: [404, 502, 504] });

export const sessionInfoRoutes = (app: RouteApp, deps: AppDeps) => {
  const primary = deps.runtimes.primary;

  /** A virtual subagent id is answered only while the parent runtime is live. */
  function virtualSession(id: string): boolean {
    if (!id.startsWith(SUBAGENT_PREFIX)) return false;
    if (!primary.channelLive) throw sessionNotFound(id);
    return true;
  }

  return app
    .get("/session/:id/status", ({ params }) => sessionSummary(deps.sessions.get(params.id)), {
      params: SessionIdParams,
      response: { 200: SESSION_SUMMARY, ...errorResponses({ also: [404] }) },
      detail: capability("session_status", { summary: "Runtime status of a live session" }),
    })
    .get(
      "/session/:id/context",
      async ({ params }) => {
        if (virtualSession(params.id)) return { v: 1, sessionId: params.id, workspaceCwd: primary.cwd, state: {} };
        const session = deps.sessions.get(params.id);
        const live = session.runtime.current();
        const fromAgent = live ? await live.profile.sessionContext(live.channel, session.agentSessionId) : null;
        if (fromAgent) return { ...fromAgent, v: 1, sessionId: session.id, workspaceCwd: session.workspaceCwd };
        const { models, modes, configOptions } = session.state;
        return { v: 1, sessionId: session.id, workspaceCwd: session.workspaceCwd, state: { models: models ?? null, modes: modes ?? null, configOptions: configOptions ?? [] } };
      },
      { params: SessionIdParams, response: { 200: SessionContext, ...fromAgent }, detail: capability("session_context", { summary: "Live model, mode and config-option state" }) },
    )
    .get(
      "/session/:id/supported-commands",
      async ({ params }) => {
        if (virtualSession(params.id)) return { v: 1, sessionId: params.id, availableCommands: [], availableSkills: [] };
        const session = deps.sessions.get(params.id);
        const live = session.runtime.current();
        const fromAgent = live ? await live.profile.supportedCommands(live.channel, session.agentSessionId) : null;
        return { v: 1, sessionId: session.id, availableCommands: fromAgent?.availableCommands ?? session.availableCommands ?? [], availableSkills: fromAgent?.availableSkills ?? [] };
      },
      { params: SessionIdParams, response: { 200: SupportedCommands, ...fromAgent }, detail: capability("session_supported_commands", { summary: "Commands the agent offers in this session" }) },
    );
};
