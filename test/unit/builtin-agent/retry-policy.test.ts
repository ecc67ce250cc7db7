import { describe, expect, test } from "bun:test";
import { APICallError } from "@ai-sdk/provider";
import { MAX_RETRIES, retryDecision, serverRetryDelayMs } from "../../../src/builtin-agent/model/retry-policy.ts";

const apiError = (statusCode: number | undefined, headers: Record<string, string> = {}) =>
  new APICallError({ message: "x", url: "http://m/v1", requestBodyValues: {}, statusCode, responseHeaders: headers, isRetryable: statusCode === undefined || statusCode === 429 || statusCode >= 500 });

describe("serverRetryDelayMs", () => {
  test("reads retry-after-ms, retry-after seconds and retry-after dates, any header case", () => {
    expect(serverRetryDelayMs({ "Retry-After-Ms": "250" })).toBe(250);
    expect(serverRetryDelayMs({ "retry-after": "2" })).toBe(2000);
    expect(serverRetryDelayMs({ "retry-after": new Date(10_000).toUTCString() }, 4000)).toBe(6000);
    expect(serverRetryDelayMs({ "retry-after": "soon" })).toBeNull();
    expect(serverRetryDelayMs({})).toBeNull();
  });
});

describe("retryDecision", () => {
  test("retries 429, 5xx and network failures with backoff, at most MAX_RETRIES times", () => {
    expect(retryDecision(apiError(429), 0)).toEqual({ retry: true, delayMs: 500 });
    expect(retryDecision(apiError(503), 1)).toEqual({ retry: true, delayMs: 1000 });
    expect(retryDecision(apiError(undefined), 2)).toEqual({ retry: true, delayMs: 2000 });
    expect(retryDecision(apiError(503), MAX_RETRIES).retry).toBe(false);
  });
  test("honours the server's wait, and gives up at once when it is too long", () => {
    expect(retryDecision(apiError(429, { "retry-after": "3" }), 0)).toEqual({ retry: true, delayMs: 3000 });
    expect(retryDecision(apiError(429, { "retry-after": "120" }), 0).retry).toBe(false);
  });
  test("does not retry client errors or other failures", () => {
    expect(retryDecision(apiError(400), 0).retry).toBe(false);
    expect(retryDecision(apiError(401), 0).retry).toBe(false);
    expect(retryDecision(new Error("boom"), 0).retry).toBe(false);
  });
});
