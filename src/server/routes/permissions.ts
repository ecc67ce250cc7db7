/**
 * Permission votes: the session-scoped route (routed to the session's owning runtime; 403
 * `untrusted_workspace` for an untrusted registered owner, 503 `workspace_runtime_unavailable`
 * while the owner is being removed or stopped) and the process-global legacy route (primary
 * workspace only; other owners get the lost-vote 404).
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { isLoopbackHost } from "../../config/net.ts";
import type { VoteOutcome } from "../../sessions/vote-policy.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { VOTE_ACCEPTED } from "../schemas/api-models.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { registeredClient } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const RequestIdParam = t.String({ minLength: 1, maxLength: 128 });

const BAD_SHAPE = "`outcome` must be `{ outcome: \"cancelled\" }` or `{ outcome: \"selected\", optionId: string }`";
const badShapeBody = () => new DaemonError(400, null, BAD_SHAPE).body();

/** `{outcome}`; other members (`answers`, `expectedPlanExecutionMode`) are ignored. */
const VoteBody = t.Object(
  {
    outcome: t.Union(
      [
        t.Object({ outcome: t.Literal("selected"), optionId: t.String({ minLength: 1, maxLength: 512 }) }),
        t.Object({ outcome: t.Literal("cancelled") }),
      ],
      { error: badShapeBody },
    ),
  },
  { additionalProperties: true, error: badShapeBody },
);
/** 403 `permission_forbidden` (the front door's 403 is declared already), 404 no such request. */
const voteSchemas = { headers: ClientIdHeaders, body: VoteBody, response: { 200: VOTE_ACCEPTED, ...errorResponses({ body: true, also: [404] }) } } as const;

export const permissionRoutes = (app: RouteApp, deps: AppDeps) => {
  const voterOf = (request: Request, clientId: string | null) => {
    const address = deps.remoteAddress(request);
    return { clientId, loopback: address !== null && isLoopbackHost(address.replace(/^::ffff:/, "")) };
  };

  return app
    .post(
      "/session/:id/permission/:requestId",
      ({ params, body, request }) => {
        // The owner resolved (404, 403 untrusted registered owner, 503 owner unavailable): `SessionManager.get`.
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        return session.permissions.vote(params.requestId, body.outcome as VoteOutcome, voterOf(request, clientId), () =>
          new DaemonError(404, null, "No pending permission request for session", { sessionId: session.id, requestId: params.requestId }),
        );
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 512 }), requestId: RequestIdParam }),
        ...voteSchemas,
        detail: capability(["session_permission_vote", "permission_mediation"], { summary: "Vote on a pending permission request" }),
      },
    )
    .post(
      "/permission/:requestId",
      ({ params, body, request }) => {
        const lost = () => new DaemonError(404, null, "No pending permission request", { requestId: params.requestId });
        for (const session of deps.sessions.all()) {
          if (session.runtime !== deps.runtimes.primary) continue;
          if (!session.permissions.has(params.requestId)) continue;
          const clientId = registeredClient(session, request);
          return session.permissions.vote(params.requestId, body.outcome as VoteOutcome, voterOf(request, clientId), lost);
        }
        throw lost();
      },
      {
        params: t.Object({ requestId: RequestIdParam }),
        ...voteSchemas,
        detail: capability("permission_vote", { summary: "Vote on a pending permission request of the primary workspace" }),
      },
    );
};
