/**
 * The client's channel webhook and workflow-action calls (spread into
 * `createClient`'s client). A webhook is sent with its source's secret, not the bearer: it is what a
 * CI system or a bridge posts, and the daemon judges it before bearer authentication.
 */
import { errorFromResponse } from "./errors.ts";

type Call = <T>(path: string, o?: { method?: string; body?: unknown; session?: string }) => Promise<T>;
type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

const enc = encodeURIComponent;

/** An event for `POST /channels/:channelName/webhooks/:source`; its text fields are quoted into the prompt as untrusted data. */
export interface WebhookEvent {
  eventType: string;
  /** A target of the source in the daemon's host settings, naming the session to prompt. */
  targetRef: string;
  title: string;
  summary?: string;
  payload?: Record<string, unknown>;
}

/** 202: queued on the target session; 200: the delivery id was seen before, nothing was done. */
export type WebhookAnswer = { accepted: true; sessionId: string; promptId: string } | { accepted: false; duplicate: true; deliveryId: string };

export const WORKFLOW_ACTIONS = ["pause", "resume", "retry", "rerun", "delete-history", "run-saved", "run-script"] as const;
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];

export function channelCalls(call: Call, doFetch: Fetch, url: (path: string) => string) {
  return {
    /** Posts a webhook event with the source's `secret`; `deliveryId` (sent as `X-Svc-Webhook-Delivery`) makes a resend harmless. */
    sendWebhook: async (channel: string, source: string, event: WebhookEvent, o: { secret: string; deliveryId?: string; signal?: AbortSignal }): Promise<WebhookAnswer> => {
      const headers: Record<string, string> = { accept: "application/json", "content-type": "application/json", "x-svc-webhook-secret": o.secret };
      if (o.deliveryId !== undefined) headers["x-svc-webhook-delivery"] = o.deliveryId;
      const res = await doFetch(url(`/channels/${enc(channel)}/webhooks/${enc(source)}`), { method: "POST", headers, body: JSON.stringify(event), signal: o.signal });
      if (!res.ok) throw await errorFromResponse(res);
      return (await res.json()) as WebhookAnswer;
    },
    /** Controls an agent's workflow task (no agent this daemon runs has them: 501 `agent_unsupported`); needs the token. */
    workflowAction: (id: string, taskId: string, action: WorkflowAction, input: Record<string, unknown> = {}) =>
      call<{ changed: boolean }>(`/session/${enc(id)}/tasks/${enc(taskId)}/workflow-action`, { method: "POST", body: { ...input, action }, session: id }),
  };
}
