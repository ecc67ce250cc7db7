/**
 * The bound workspace's folder trust (reference shapes, protocol-notes and the reference's
 * `routes/workspace-trust.ts`), both under the reference's capability tag `workspace_trust`:
 *
 *   GET  /workspace/trust                  → the trust report (`trust-report.ts`)
 *   POST /workspace/trust/request          {desiredState, reason?} → 202 {accepted, desiredState, requiresOperatorAction, …}
 *
 * The POST is strict (401 `token_required` at the front door while no token is configured). Where
 * the reference only forwards the request to an operator (`accepted: false`), svc applies it: the
 * decision is written to the trust store, counts at once for the daemon's checks, reaches the live
 * built-in agent (`trust-sync.ts`, what became of it is `agent`), and `trust_change_requested` is
 * published to the workspace's live sessions. 409 `folder_trust_disabled` when the host settings
 * opted out of folder trust (the reference's answer).
 */
import type { AgentTrustOutcome } from "../../sessions/trust-sync.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { trustReport } from "../trust-report.ts";
import { TrustRequestAnswer, TrustRequestBody, TrustStatus } from "./trust-schemas.ts";
import type { RouteApp } from "./route-app.ts";

export const trustRoutes = (app: RouteApp, deps: AppDeps) => {
  const runtime = deps.runtimes.primary;
  return app
    .get("/workspace/trust", () => trustReport(deps.config, deps.trust), {
      response: { 200: TrustStatus, ...errorResponses() },
      detail: capability("workspace_trust", { summary: "Whether the workspace is trusted, why, and what its settings ask for that is ignored" }),
    })
    .post(
      "/workspace/trust/request",
      async ({ body, set }) => {
        const before = deps.trust.decision().trusted;
        const after = deps.trust.request(body.desiredState);
        const data = { workspaceCwd: deps.config.workspace, desiredState: body.desiredState, ...(body.reason === undefined ? {} : { reason: body.reason }) };
        for (const session of deps.sessions.all()) if (session.runtime === runtime && !session.isEnded) session.publish("trust_change_requested", data);
        const agent: AgentTrustOutcome | "unchanged" = after.trusted === before ? "unchanged" : await deps.trustSync.latest();
        set.status = 202;
        return {
          accepted: true,
          desiredState: body.desiredState,
          requiresOperatorAction: false,
          effective: { state: after.trusted ? ("trusted" as const) : ("untrusted" as const), source: after.source },
          persisted: true,
          agent,
        };
      },
      {
        body: TrustRequestBody,
        response: { 202: TrustRequestAnswer, ...errorResponses({ body: true, also: [409] }) },
        detail: capability("workspace_trust", { summary: "Trust the workspace or revoke its trust (applied at once, saved in the trust store)", "x-svc-strict": true }),
      },
    );
};
