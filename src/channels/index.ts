/**
 * Channel webhook intake (`POST /channels/:channelName/webhooks/:source`), the subsystem's one
 * seam, loaded on the first webhook. The route has authenticated the sender by its source's secret;
 * this decides what the event does: which session it prompts and with what text, whether its
 * delivery id was seen before, and whether its source is over its rate.
 */
import type { ChannelSettings, WebhookSource } from "../config/channel-settings.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import { DeliveryLog, MAX_DELIVERY_ID_LENGTH } from "./delivery-log.ts";
import { webhookPrompt, type WebhookEvent } from "./webhook-prompt.ts";

export { MAX_DELIVERY_ID_LENGTH } from "./delivery-log.ts";
export type { WebhookEvent } from "./webhook-prompt.ts";

/** Events one source may turn into prompts per minute; a sender over it gets 429 and retries later. */
export const SOURCE_EVENTS_PER_MINUTE = 30;
const MINUTE_MS = 60_000;

export type Intake =
  | { readonly kind: "duplicate"; readonly deliveryId: string }
  | {
      readonly kind: "prompt";
      readonly sessionId: string;
      readonly text: string;
      /** Reports whether the session admitted the prompt: a delivery not admitted may be sent again. */
      readonly settle: (admitted: boolean) => void;
    };

export interface ChannelIngress {
  intake(channel: string, source: string, deliveryId: string | null, targetRef: string, event: WebhookEvent): Intake;
}

export interface IngressDeps {
  readonly channels: ChannelSettings;
  readonly dataDir: string;
  /** Told when the delivery log cannot be written (the intake goes on: the log is a guard, not the work). */
  readonly onPersistError: (err: unknown) => void;
  readonly now?: () => number;
}

export function createChannelIngress(deps: IngressDeps): ChannelIngress {
  const now = deps.now ?? Date.now;
  const log = new DeliveryLog(deps.dataDir);
  /** Per source: the times of its events in the last minute (at most SOURCE_EVENTS_PER_MINUTE, so bounded). */
  const recent = new Map<WebhookSource, number[]>();

  function takeRate(source: WebhookSource): void {
    const at = now();
    const times = (recent.get(source) ?? []).filter((t) => at - t < MINUTE_MS);
    if (times.length >= SOURCE_EVENTS_PER_MINUTE) {
      const retryAfter = Math.max(1, Math.ceil((times[0]! + MINUTE_MS - at) / 1000));
      recent.set(source, times);
      throw new DaemonError(429, "rate_limit_exceeded", "Rate limit exceeded for this webhook source", { tier: "mutation" }, retryAfter);
    }
    times.push(at);
    recent.set(source, times);
  }

  return {
    intake(channel, sourceName, deliveryId, targetRef, event) {
      const source = deps.channels.get(channel)?.get(sourceName);
      if (source === undefined) throw new DaemonError(401, null, "Invalid webhook secret");
      const target = source.targets.get(targetRef);
      if (target === undefined) throw new DaemonError(404, null, "Unknown channel webhook target");
      if (deliveryId !== null && deliveryId.length > MAX_DELIVERY_ID_LENGTH)
        throw new DaemonError(400, "invalid_request", `The delivery id is longer than ${MAX_DELIVERY_ID_LENGTH} characters`);
      const key = deliveryId === null ? null : JSON.stringify([channel, sourceName, deliveryId]);
      if (key !== null && !log.claim(key)) return { kind: "duplicate", deliveryId: deliveryId! };
      try {
        takeRate(source);
      } catch (err) {
        if (key !== null) log.release(key);
        throw err;
      }
      return {
        kind: "prompt",
        sessionId: target.sessionId,
        text: webhookPrompt(target.instruction, { channel, source: sourceName, deliveryId }, event),
        settle(admitted) {
          if (key === null) return;
          if (!admitted) return log.release(key);
          try {
            log.persist();
          } catch (err) {
            deps.onPersistError(err);
          }
        },
      };
    },
  };
}
