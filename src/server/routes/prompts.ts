/** Prompts: admission (202), cancel of the running prompt (204), and the pending list. */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { t } from "elysia";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { ContentBlock, PromptAccepted, PromptBody } from "./prompt-schemas.ts";
import { SessionIdParams, registeredClient } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const PendingPrompts = t.Object({
  pendingPrompts: t.Array(
    t.Object({
      promptId: t.String(),
      text: t.String(),
      content: t.Array(ContentBlock),
      queuedAt: t.Number(),
      state: t.Union([t.Literal("queued"), t.Literal("running")]),
      originatorClientId: t.Optional(t.String()),
    }),
  ),
});

export const promptRoutes = (app: RouteApp, deps: AppDeps) =>
  app
    .post(
      "/session/:id/prompt",
      ({ params, body, request, set }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        session.noteActivity();
        const admission = session.prompts.submit(body.prompt as acp.ContentBlock[], clientId, body.deadlineMs ?? null);
        set.status = 202;
        return admission;
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: PromptBody,
        response: { 202: PromptAccepted, ...errorResponses({ body: true, also: [404] }) },
        detail: capability(["session_prompt", "non_blocking_prompt"], { summary: "Queue a prompt (202 on admission)" }),
      },
    )
    .post(
      "/session/:id/cancel",
      async ({ params, request, set }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        await session.prompts.cancelRunning(clientId);
        set.status = 204;
        return null;
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        response: { 204: t.Null({ description: "cancelled, or nothing was running" }), ...errorResponses({ also: [404, 502, 504] }) },
        detail: capability("session_cancel", { summary: "Cancel the running prompt (204)" }),
      },
    )
    .get(
      "/session/:id/pending-prompts",
      ({ params, request }) => {
        const session = deps.sessions.get(params.id);
        registeredClient(session, request);
        return {
          pendingPrompts: session.prompts.list().map((p) => ({
            promptId: p.promptId,
            text: p.text,
            content: p.content,
            queuedAt: p.queuedAt,
            state: p.state,
            ...(p.originatorClientId ? { originatorClientId: p.originatorClientId } : {}),
          })),
        };
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        response: { 200: PendingPrompts, ...errorResponses({ also: [404] }) },
        detail: { summary: "Running and queued prompts" },
      },
    );
