/**
 * CORS allowlist decision for one request (pure). Order in the chain: after the self-origin strip,
 * before the Host allowlist. Unmatched origins get 403 without any `Access-Control-*` header;
 * matched ones get the origin echoed (never `*`) and the full header set on every response.
 */
import type { OriginPolicy } from "../../config/origin-patterns.ts";

export const CORS_ALLOW_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";
export const CORS_ALLOW_HEADERS = "Authorization, Content-Type, X-Svc-Client-Id, Last-Event-ID, X-Svc-Event-Epoch";
export const CORS_EXPOSE_HEADERS = "Retry-After, X-Svc-Event-Epoch, X-Svc-SSE-Stream-Id";
export const CORS_MAX_AGE = "86400";

export type CorsDecision =
  | { readonly kind: "none" } // no Origin header (or a stripped self-origin)
  | { readonly kind: "deny" }
  | { readonly kind: "preflight"; readonly headers: Record<string, string> }
  | { readonly kind: "allow"; readonly headers: Record<string, string> };

const NONE: CorsDecision = { kind: "none" };
const DENY: CorsDecision = { kind: "deny" };

export function corsHeadersFor(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    Vary: "Origin",
    "Access-Control-Allow-Methods": CORS_ALLOW_METHODS,
    "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
    "Access-Control-Max-Age": CORS_MAX_AGE,
    "Access-Control-Expose-Headers": CORS_EXPOSE_HEADERS,
  };
}

/**
 * @param origin the request's Origin header, already stripped (null) when it is the daemon's own
 * @param isPreflight OPTIONS carrying Access-Control-Request-Method or -Headers
 */
export function decideCors(origin: string | null, isPreflight: boolean, policy: OriginPolicy): CorsDecision {
  if (origin === null) return NONE;
  const lower = origin.toLowerCase();
  if (lower === "null" || lower === "") return DENY;
  if (!policy.any && !policy.origins.has(lower)) return DENY;
  const headers = corsHeadersFor(origin);
  return isPreflight ? { kind: "preflight", headers } : { kind: "allow", headers };
}
