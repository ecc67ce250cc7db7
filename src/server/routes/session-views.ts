/**
 * Session views the live agent answers through its profile (`<prefix>/status/session/<view>`,
 * spec acp-agents §4.1): `GET /session/:id/context-usage`, `/tasks`, `/stats`, `/lsp`, `/resources`.
 * Answers pass through `status-redact.ts` (resources carry the skills and MCP snapshots).
 *
 * Each route is advertised by its tag whatever agent runs (tags are fixed when the app is built,
 * before any agent is known); an agent that cannot give the view answers it with 501
 * `agent_unsupported`: a generic ACP agent, or an extension agent without that method. So a tag
 * says the route exists and answers by this contract, and a client learns about the agent from the
 * 501. Unknown session: 404 `session_not_found`; no live channel: 503; the agent failing, or
 * answering something the sanitizer refuses (not an object, beyond the answer bounds of
 * `agent-json.ts`): 502 `agent_status_failed` with `errorKind: protocol_error`; not answering
 * within CONTROL_TIMEOUT_MS: 504.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { ChannelClosedError, AgentRequestError } from "../../runtime/acp-channel.ts";
import type { SessionView } from "../../runtime/agent-profile.ts";
import { stderrSecrets } from "../../runtime/stderr-secrets.ts";
import { redactSecrets } from "../../logging/redact.ts";
import { AgentAnswerError, redactSessionView } from "../../workspace/status-redact.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { openObject } from "../schemas/open-object.ts";
import { SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

/** The agent's view (its members pass through, sanitized), stamped with the daemon's session id and workspace. */
const viewReply = (description: string) =>
  openObject({ v: t.Literal(1), sessionId: t.String(), workspaceCwd: t.String() }, { description });

const ROUTES: readonly { path: string; view: SessionView; tag: string; summary: string; reply: ReturnType<typeof viewReply> }[] = [
  {
    path: "/session/:id/context-usage",
    view: "context_usage",
    tag: "session_context_usage",
    summary: "Context window usage counters, as the agent reports them",
    reply: viewReply("`usage` ({modelName, totalTokens, contextWindowSize, breakdown, …}) and `formattedText`, as the agent sent them"),
  },
  { path: "/session/:id/tasks", view: "tasks", tag: "session_tasks", summary: "Background tasks of the session", reply: viewReply("`now` (epoch ms) and `tasks[]`, as the agent sent them") },
  { path: "/session/:id/stats", view: "stats", tag: "session_stats", summary: "Model, tool and token statistics of the session", reply: viewReply("per-model, per-tool and per-source counters, as the agent sent them") },
  { path: "/session/:id/lsp", view: "lsp", tag: "session_lsp", summary: "Read-only language-server status of the session", reply: viewReply("`enabled`, server counts and `servers[]`, as the agent sent them") },
  { path: "/session/:id/resources", view: "resources", tag: "session_resources", summary: "The skills and MCP snapshots the session sees", reply: viewReply("`skills` and `mcp`: snapshots in the shapes of /workspace/skills and /workspace/mcp") },
];

const errors = errorResponses({ also: [404, 501, 502, 503, 504] });

export const sessionViewRoutes = (app: RouteApp, deps: AppDeps) => {
  const secrets = stderrSecrets(deps.config.agent, deps.config.token);

  async function answer(id: string, view: SessionView) {
    const session = deps.sessions.get(id);
    const live = session.runtime.current();
    if (!live) throw new ChannelClosedError("no agent child is running for this session");
    let sanitized: Record<string, unknown>;
    let reply: unknown;
    try {
      reply = await live.profile.sessionView(live.channel, view, session.agentSessionId);
      if (reply === null) throw new DaemonError(501, "agent_unsupported", `This session's agent (profile ${live.profile.name}) does not report ${view}`, { view, profile: live.profile.name });
      sanitized = redactSessionView(view, reply, secrets);
    } catch (err) {
      if (!(err instanceof AgentRequestError || err instanceof AgentAnswerError)) throw err;
      throw new DaemonError(502, "agent_status_failed", `The agent failed to report ${view}: ${redactSecrets(err.message, secrets)}`, { errorKind: "protocol_error", view });
    }
    if (view === "resources") {
      // Each snapshot in the shape of its workspace route: with that route's envelope.
      for (const part of ["skills", "mcp"] as const) {
        const raw = (reply as Record<string, unknown>)[part];
        const initialized = !(raw !== null && typeof raw === "object" && (raw as { initialized?: unknown }).initialized === false);
        sanitized[part] = { v: 1, workspaceCwd: session.workspaceCwd, initialized, ...(sanitized[part] as Record<string, unknown>) };
      }
    }
    return { ...sanitized, v: 1 as const, sessionId: session.id, workspaceCwd: session.workspaceCwd };
  }
  for (const route of ROUTES)
    app.get(route.path, ({ params }) => answer(params.id, route.view), {
      params: SessionIdParams,
      response: { 200: route.reply, ...errors },
      detail: capability(route.tag, { summary: route.summary }),
    });
  return app;
};
