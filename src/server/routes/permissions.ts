/**
 * Permission votes: the session-scoped route (routed to the session's owning runtime) and the
 * process-global legacy route (primary workspace only; other owners get the lost-vote 404).
 */
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { isLoopbackHost } from "../../config/net.ts";
import { parseVote } from "../../sessions/permission-broker.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { registeredClient } from "./session-params.ts";

const RequestIdParam = t.String({ minLength: 1, maxLength: 128 });

export const permissionRoutes = (deps: AppDeps) => {
  const voterOf = (request: Request, clientId: string | null) => {
    const address = deps.remoteAddress(request);
    return { clientId, loopback: address !== null && isLoopbackHost(address.replace(/^::ffff:/, "")) };
  };

  return new Elysia({ name: "routes/permissions" })
    .post(
      "/session/:id/permission/:requestId",
      ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const outcome = parseVote(body);
        return session.permissions.vote(params.requestId, outcome, voterOf(request, clientId), () =>
          new DaemonError(404, null, "No pending permission request for session", { sessionId: session.id, requestId: params.requestId }),
        );
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 512 }), requestId: RequestIdParam }),
        body: t.Optional(t.Unknown()),
        detail: capability(["session_permission_vote", "permission_mediation"], { summary: "Vote on a pending permission request" }),
      },
    )
    .post(
      "/permission/:requestId",
      ({ params, body, request }) => {
        const outcome = parseVote(body);
        const lost = () => new DaemonError(404, null, "No pending permission request", { requestId: params.requestId });
        for (const session of deps.sessions.all()) {
          if (session.runtime !== deps.runtimes.primary) continue;
          if (!session.permissions.knows(params.requestId)) continue;
          const clientId = registeredClient(session, request);
          return session.permissions.vote(params.requestId, outcome, voterOf(request, clientId), lost);
        }
        throw lost();
      },
      {
        params: t.Object({ requestId: RequestIdParam }),
        body: t.Optional(t.Unknown()),
        detail: capability("permission_vote", { summary: "Vote on a pending permission request of the primary workspace" }),
      },
    );
};
