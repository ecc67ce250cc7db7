/**
 * `POST /channels/:channelName/webhooks/:source`: a configured webhook source's event becomes a
 * prompt on the session its target names (`src/channels/`). The front door has authenticated the
 * sender by the source's secret instead of a bearer (`security/webhook-auth.ts`); the handler checks
 * the secret again, on the same path, so no request reaches the intake unauthenticated whatever
 * built the app. 202 when the prompt is queued, 200 `duplicate` when its delivery id was seen.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import type { AppDeps } from "../app-deps.ts";
import { pathOf } from "../front-door.ts";
import { JSON_BODY_LIMITS, type JsonBodyLimits } from "../json-body.ts";
import { loadChannels } from "../lazy-seams.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { MAX_WEBHOOK_BODY_BYTES, WEBHOOK_SECRET_HEADER, webhookAddress, webhookSecretMatches } from "../security/webhook-auth.ts";
import type { ChannelIngress } from "../../channels/index.ts";
import type { RouteApp } from "./route-app.ts";

/** A webhook body's bounds: the API's, with the webhook's byte cap (chunked bodies are counted too). */
export const WEBHOOK_BODY_LIMITS: JsonBodyLimits = { ...JSON_BODY_LIMITS, maxBytes: MAX_WEBHOOK_BODY_BYTES };

const WebhookParams = t.Object({ channelName: t.String(), source: t.String() });

const WebhookHeaders = t.Object(
  {
    [WEBHOOK_SECRET_HEADER]: t.Optional(t.String({ description: "the source's secret (host settings `channels.<channel>.webhooks.sources.<source>`)" })),
  },
  { additionalProperties: true },
);

const WebhookBody = t.Object({
  eventType: t.String({ minLength: 1, description: "what happened (e.g. `workflow_run.failed`); untrusted, quoted into the prompt" }),
  targetRef: t.String({ minLength: 1, description: "a target of the source, naming the session to prompt" }),
  title: t.String({ minLength: 1, description: "one line; untrusted, quoted into the prompt" }),
  summary: t.Optional(t.String({ description: "untrusted, quoted into the prompt (bounded)" })),
  payload: t.Optional(t.Record(t.String(), t.Unknown(), { description: "untrusted, quoted into the prompt as JSON (bounded)" })),
});

const Accepted = t.Object({
  accepted: t.Literal(true),
  sessionId: t.String(),
  promptId: t.String(),
});

const Duplicate = t.Object({
  accepted: t.Literal(false),
  duplicate: t.Literal(true),
  deliveryId: t.String(),
});

export const channelWebhookRoutes = (app: RouteApp, deps: AppDeps) => {
  const channels = deps.config.settings.channels;
  let ingress: Promise<ChannelIngress> | null = null;
  const intake = () =>
    (ingress ??= loadChannels().then(({ createChannelIngress }) =>
      createChannelIngress({
        channels,
        dataDir: deps.config.dataDir,
        onPersistError: (err) => deps.logger.warn("webhook delivery log not written", { error: String(err) }),
      }),
    ));

  return app.post(
    "/channels/:channelName/webhooks/:source",
    async ({ request, body, set }) => {
      const address = webhookAddress(pathOf(request.url));
      if (address === null || !webhookSecretMatches(channels, address, request.headers.get(WEBHOOK_SECRET_HEADER)))
        throw new DaemonError(401, null, "Invalid webhook secret");
      const source = channels.get(address.channel)!.get(address.source)!;
      const deliveryId = source.deliveryHeaders.map((h) => request.headers.get(h)).find((v) => v !== null && v !== undefined) ?? null;
      const event = { eventType: body.eventType, title: body.title, ...(body.summary === undefined ? {} : { summary: body.summary }), ...(body.payload === undefined ? {} : { payload: body.payload }) };
      const taken = (await intake()).intake(address.channel, address.source, deliveryId, body.targetRef, event);
      if (taken.kind === "duplicate") {
        deps.logger.info("channel webhook duplicate delivery ignored", { channel: address.channel, source: address.source });
        return { accepted: false as const, duplicate: true as const, deliveryId: taken.deliveryId };
      }
      try {
        const session = deps.sessions.get(taken.sessionId);
        const admission = session.prompts.submit([{ type: "text", text: taken.text }] as acp.ContentBlock[], null, null);
        session.noteActivity();
        taken.settle(true);
        deps.logger.info("channel webhook prompt queued", { channel: address.channel, source: address.source, sessionId: taken.sessionId });
        set.status = 202;
        return { accepted: true as const, sessionId: taken.sessionId, promptId: admission.promptId };
      } catch (err) {
        taken.settle(false);
        if (err instanceof DaemonError && err.code === "session_not_found")
          throw new DaemonError(409, "channel_webhook_target_unavailable", "The session this webhook target names is not live", { sessionId: taken.sessionId });
        throw err;
      }
    },
    {
      params: WebhookParams,
      headers: WebhookHeaders,
      body: WebhookBody,
      response: { 200: Duplicate, 202: Accepted, ...errorResponses({ body: true, also: [404, 409] }) },
      detail: { summary: "Turn a channel webhook event into a prompt (secret-authenticated, no bearer)" },
    },
  );
};
