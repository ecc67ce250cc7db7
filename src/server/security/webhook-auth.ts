/**
 * Authentication of channel webhooks, the one route a bearer does not guard: the front door asks
 * this gate first, in the bearer's place, for every `POST /channels/:channelName/webhooks/:source`.
 * The sender proves itself with its source's secret in `x-svc-webhook-secret`, compared in constant
 * time over SHA-256 digests. An unknown channel or source answers exactly like a wrong secret (401),
 * so the route tells nobody which channels exist; until the host settings configure one, every
 * request is refused and nothing happens. Attempts are rate-limited in two buckets, so a stranger's
 * flood cannot lock a sender out: failed ones per client address (guessing), good ones per source
 * (a sender's own flood). A body declared bigger than the webhook bound is refused unread.
 *
 * The path is the one the router matches (`pathOf`): a segment is never decoded, and names are
 * plain characters (`channel-settings.ts`), so an encoded spelling matches no configured name.
 */
import type { ChannelSettings } from "../../config/channel-settings.ts";
import { jsonResponse } from "../error-response.ts";
import { digest, sameDigest } from "./bearer.ts";
import { RateLimiter } from "./rate-limiter.ts";

export const WEBHOOK_SECRET_HEADER = "x-svc-webhook-secret";
/** Largest webhook body (bytes), a tenth of the API's: events are small, and senders are strangers. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;
/** Webhook attempts per minute: failed ones per client address, good ones per source. */
export const WEBHOOK_ATTEMPTS_PER_MINUTE = 120;

/** Exactly the router's `/channels/:channelName/webhooks/:source` (one non-empty segment each, no trailing slash). */
const WEBHOOK_PATH = /^\/channels\/([^/]+)\/webhooks\/([^/]+)$/;

export interface WebhookAddress {
  readonly channel: string;
  readonly source: string;
}

/** The channel and source a path names, or null when it is not the webhook route's path. */
export function webhookAddress(path: string): WebhookAddress | null {
  const match = WEBHOOK_PATH.exec(path);
  return match === null ? null : { channel: match[1]!, source: match[2]! };
}

/** Whether `secret` (the header's value) is the configured secret of the source at `address`. */
export function webhookSecretMatches(channels: ChannelSettings, address: WebhookAddress, secret: string | null): boolean {
  const source = channels.get(address.channel)?.get(address.source);
  // An unknown source still costs a digest, so its answer takes as long as a wrong secret's.
  const expected = digest(source?.secret ?? "\u0000unconfigured");
  const matches = secret !== null && sameDigest(digest(secret), expected);
  return matches && source !== undefined;
}

const INVALID_SECRET = { error: "Invalid webhook secret" };

/**
 * The door's verdict on a request: null when it is not a webhook request (the bearer judges it),
 * "admit" when its secret is good, else the answer to send.
 */
export type WebhookGate = (method: string, path: string, headers: Headers, clientKey: () => string) => Response | "admit" | null;

export function createWebhookGate(channels: ChannelSettings, now: () => number = Date.now): WebhookGate {
  const attempts = new RateLimiter({ enabled: true, windowMs: 60_000, prompt: WEBHOOK_ATTEMPTS_PER_MINUTE, mutation: WEBHOOK_ATTEMPTS_PER_MINUTE, read: WEBHOOK_ATTEMPTS_PER_MINUTE }, now);
  return (method, path, headers, clientKey) => {
    if (method !== "POST") return null;
    const address = webhookAddress(path);
    if (address === null) return null;
    const good = webhookSecretMatches(channels, address, headers.get(WEBHOOK_SECRET_HEADER));
    // The secret is compared first (a digest, constant time): only then is the bucket known.
    const verdict = attempts.check(good ? `source:${address.channel}/${address.source}` : `failed:${clientKey()}`, "mutation");
    if (!verdict.allowed)
      return jsonResponse({ error: "Rate limit exceeded", code: "rate_limit_exceeded", tier: "mutation" }, 429, {
        "Retry-After": String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))),
      });
    if (!good) return jsonResponse(INVALID_SECRET, 401);
    const length = headers.get("content-length");
    if (length !== null && !(Number(length) <= MAX_WEBHOOK_BODY_BYTES))
      return jsonResponse({ error: `Request body too large (max ${MAX_WEBHOOK_BODY_BYTES} bytes)` }, 413);
    return "admit";
  };
}
