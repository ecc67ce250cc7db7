/**
 * A session's hooks, through its live agent (the built-in agent's `hook-methods.ts`):
 *
 *   GET    /session/:id/hooks           → {v, sessionId, workspaceCwd, disabled, hooks[]}
 *   POST   /session/:id/hooks           {eventName, matcher?, type?, command, timeout?, name?, description?} → {v, sessionId, workspaceCwd, hook}
 *   DELETE /session/:id/hooks/:hookId   → {v, sessionId, hookId, removed: true}
 *
 * Session hooks live in the agent's memory for the session's life (a bounded number each). Adding
 * and removing are strict mutations (they need a configured token: a hook runs commands); a body
 * field out of its bounds is 400. A hook is never echoed with its command: answers pass
 * through `redactHooks`. Unknown session 404; no live agent 503; an agent without the methods
 * 501; a definition it refuses 400 `invalid_hook`; an unknown hook id 404 `hook_not_found`.
 */
import { t, type Static } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { redactSecrets } from "../../logging/redact.ts";
import { AgentRequestError, ChannelClosedError } from "../../runtime/acp-channel.ts";
import { addSessionHook, removeSessionHook } from "../../runtime/session-hook-controls.ts";
import { stderrSecrets } from "../../runtime/stderr-secrets.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import { AgentAnswerError, redactHooks, redactSessionView } from "../../workspace/status-redact.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { AddHookBody, AddHookReply, HookCell, RemoveHookReply, SessionHooksReply } from "./hooks-schemas.ts";
import { SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const HookParams = t.Object({ id: SessionIdParams.properties.id, hookId: t.String({ minLength: 1, maxLength: 256 }) });

export const sessionHookRoutes = (app: RouteApp, deps: AppDeps) => {
  const secrets = stderrSecrets(deps.config.agent, deps.config.token);

  function liveOf(session: LiveSession) {
    const live = session.runtime.current();
    if (!live) throw new ChannelClosedError("no agent child is running for this session");
    return live;
  }

  /** The agent's answer as sanitized members; an answer it cannot be is 502. */
  function sanitized<T>(what: string, project: () => T): T {
    try {
      return project();
    } catch (err) {
      if (!(err instanceof AgentAnswerError)) throw err;
      throw new DaemonError(502, "agent_status_failed", `The agent failed to report ${what}: ${redactSecrets(err.message, secrets)}`, { errorKind: "protocol_error", view: "hooks" });
    }
  }

  async function list(id: string) {
    const session = deps.sessions.get(id);
    const live = liveOf(session);
    let reply;
    try {
      reply = await live.profile.sessionView(live.channel, "hooks", session.agentSessionId);
    } catch (err) {
      if (!(err instanceof AgentRequestError)) throw err;
      throw new DaemonError(502, "agent_status_failed", `The agent failed to report hooks: ${redactSecrets(err.message, secrets)}`, { errorKind: "protocol_error", view: "hooks" });
    }
    if (reply === null) throw new DaemonError(501, "agent_unsupported", `This session's agent (profile ${live.profile.name}) does not report hooks`, { view: "hooks", profile: live.profile.name });
    // The sanitizer assembles exactly the schema's members.
    const members = sanitized("hooks", () => redactSessionView("hooks", reply, secrets)) as Pick<Static<typeof SessionHooksReply>, "disabled" | "hooks" | "errors">;
    return { ...members, v: 1 as const, sessionId: session.id, workspaceCwd: session.workspaceCwd };
  }

  return app
    .get("/session/:id/hooks", ({ params }) => list(params.id), {
      params: SessionIdParams,
      response: { 200: SessionHooksReply, ...errorResponses({ also: [404, 501, 502, 503, 504] }) },
      detail: capability("session_hooks", { summary: "The session's own hooks (added through the API), never their commands" }),
    })
    .post(
      "/session/:id/hooks",
      async ({ params, body }) => {
        const session = deps.sessions.get(params.id);
        const raw = await addSessionHook(liveOf(session), session.agentSessionId, body);
        const [hook] = sanitized("the session hook", () => redactHooks({ hooks: [raw] }, secrets).hooks as Static<typeof HookCell>[]);
        return { v: 1 as const, sessionId: session.id, workspaceCwd: session.workspaceCwd, hook: hook! };
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: AddHookBody,
        response: { 200: AddHookReply, ...errorResponses({ body: true, also: [404, 501, 502, 503, 504] }) },
        detail: capability("session_hooks", { summary: "Add a hook to the session (kept for its life, in the agent's memory)", "x-svc-strict": true }),
      },
    )
    .delete(
      "/session/:id/hooks/:hookId",
      async ({ params }) => {
        const session = deps.sessions.get(params.id);
        if (!(await removeSessionHook(liveOf(session), session.agentSessionId, params.hookId))) throw new DaemonError(404, "hook_not_found", "The session has no hook with this id", { hookId: params.hookId });
        return { v: 1 as const, sessionId: session.id, hookId: params.hookId, removed: true as const };
      },
      {
        params: HookParams,
        headers: ClientIdHeaders,
        response: { 200: RemoveHookReply, ...errorResponses({ also: [404, 501, 502, 503, 504] }) },
        detail: capability("session_hooks", { summary: "Remove one of the session's hooks", "x-svc-strict": true }),
      },
    );
};
