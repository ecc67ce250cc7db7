/**
 * Read-only session views: status, context, supported commands, and the workspace session list.
 * Virtual `subagent.` ids resolve against the primary runtime and have an empty state.
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { SessionHistory } from "../../sessions/session-history.ts";
import { sessionNotFound } from "../../sessions/session-manager.ts";
import { sessionSummary } from "../../sessions/session-summary.ts";
import { workspaceId } from "../../workspace/workspace-id.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ErrorBody, SessionListQuery, SessionListReply } from "./history-schemas.ts";
import { SessionIdParams } from "./session-params.ts";

const SUBAGENT_PREFIX = "subagent.";

export const sessionInfoRoutes = (deps: AppDeps) => {
  const primary = deps.runtimes.primary;
  const history = new SessionHistory(deps.sessions, deps.sessions.store);

  /** A virtual subagent id is answered only while the parent runtime is live. */
  function virtualSession(id: string): boolean {
    if (!id.startsWith(SUBAGENT_PREFIX)) return false;
    if (!primary.channelLive) throw sessionNotFound(id);
    return true;
  }

  return new Elysia({ name: "routes/session-info" })
    .get("/session/:id/status", ({ params }) => sessionSummary(deps.sessions.get(params.id)), {
      params: SessionIdParams,
      detail: capability("session_status", { summary: "Runtime status of a live session" }),
    })
    .get(
      "/session/:id/context",
      async ({ params }) => {
        if (virtualSession(params.id)) return { v: 1, sessionId: params.id, workspaceCwd: primary.cwd, state: {} };
        const session = deps.sessions.get(params.id);
        const live = session.runtime.current();
        const fromAgent = live ? await live.profile.sessionContext(live.channel, session.id) : null;
        if (fromAgent) return { ...fromAgent, v: 1, sessionId: session.id, workspaceCwd: session.workspaceCwd };
        const { models, modes, configOptions } = session.state;
        return { v: 1, sessionId: session.id, workspaceCwd: session.workspaceCwd, state: { models: models ?? null, modes: modes ?? null, configOptions: configOptions ?? [] } };
      },
      { params: SessionIdParams, detail: capability("session_context", { summary: "Live model, mode and config-option state" }) },
    )
    .get(
      "/session/:id/supported-commands",
      async ({ params }) => {
        if (virtualSession(params.id)) return { v: 1, sessionId: params.id, availableCommands: [] };
        const session = deps.sessions.get(params.id);
        const live = session.runtime.current();
        const fromAgent = live ? await live.profile.supportedCommands(live.channel, session.id) : null;
        return { v: 1, sessionId: session.id, availableCommands: fromAgent ?? session.availableCommands ?? [] };
      },
      { params: SessionIdParams, detail: capability("session_supported_commands", { summary: "Commands the agent offers in this session" }) },
    )
    .get(
      "/workspace/:id/sessions",
      ({ params, query }) => {
        const selector = params.id;
        const matches = selector === workspaceId(primary.cwd) || selector === primary.cwd;
        if (!matches) {
          if (!/^[0-9a-f]{16}$/.test(selector) && !selector.startsWith("/"))
            throw new DaemonError(400, "invalid_workspace", "`:id` must decode to a workspace id or absolute path");
          throw new DaemonError(404, "workspace_not_found", "No such workspace is registered");
        }
        const archiveState = query.archiveState ?? "active";
        if (archiveState !== "active" && archiveState !== "archived")
          throw new DaemonError(400, "invalid_archive_state", "`archiveState` must be active or archived", { archiveState });
        return history.list(primary.cwd, archiveState === "archived", query.size, query.cursor);
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 4096 }) }),
        query: SessionListQuery,
        response: { 200: SessionListReply, 400: ErrorBody, 404: ErrorBody },
        detail: capability("session_list", { summary: "Sessions of a workspace, persisted and live, newest first" }),
      },
    );
};
