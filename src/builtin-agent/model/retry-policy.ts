/**
 * When a failed model request is tried again: 429, 408/409 and 5xx answers and network failures
 * (the provider marks them retryable), at most MAX_RETRIES times, waiting what the server asks
 * (`retry-after-ms`, `retry-after` in seconds or as a date) or else an exponential backoff. A server
 * that asks for more than MAX_RETRY_WAIT_MS is not waited for: the turn fails at once, naming the
 * wait. Pure; `model-round.ts` sleeps.
 */
import { APICallError } from "@ai-sdk/provider";

export const MAX_RETRIES = 3;
export const MAX_RETRY_WAIT_MS = 30_000;
const BACKOFF_BASE_MS = 500;

export type RetryDecision = { readonly retry: true; readonly delayMs: number } | { readonly retry: false; readonly reason: string };

/** The wait a response's headers ask for, in ms, or null when they ask for none. */
export function serverRetryDelayMs(headers: Readonly<Record<string, string>> | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number.parseFloat(lower["retry-after-ms"] ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower["retry-after"];
  if (raw === undefined) return null;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** `retriesDone` is how many retries already happened for this request. */
export function retryDecision(error: unknown, retriesDone: number): RetryDecision {
  if (!APICallError.isInstance(error) || !error.isRetryable) return { retry: false, reason: "not retryable" };
  if (retriesDone >= MAX_RETRIES) return { retry: false, reason: `gave up after ${MAX_RETRIES} retries` };
  const asked = serverRetryDelayMs(error.responseHeaders);
  if (asked !== null && asked > MAX_RETRY_WAIT_MS) return { retry: false, reason: `the server asked to wait ${Math.ceil(asked / 1000)} s, longer than ${MAX_RETRY_WAIT_MS / 1000} s` };
  return { retry: true, delayMs: asked ?? BACKOFF_BASE_MS * 2 ** retriesDone };
}
