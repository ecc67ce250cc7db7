/**
 * The one place errors become HTTP responses. Bodies follow the spec's shapes: `{error, code?, …}`
 * for daemon errors, `{errorKind, error, hint?, status}` for filesystem errors. Nothing internal
 * (stack traces, absolute paths, tokens) ever reaches a body: unexpected errors answer a fixed 500
 * and are logged instead.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { exhaustedResource } from "../errors/resource-exhaustion.ts";
import type { Logger } from "../logging/logger.ts";

/** Error answers are never cached and never content-sniffed, whatever route they come from. */
export const ERROR_HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" } as const;

export const jsonResponse = (body: unknown, status: number, headers?: Record<string, string>) =>
  Response.json(body, { status, headers: headers ? { ...ERROR_HEADERS, ...headers } : ERROR_HEADERS });

export function daemonErrorResponse(err: DaemonError): Response {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers["Retry-After"] = String(err.retryAfter);
  return jsonResponse(err.body(), err.status, headers);
}

/** Seconds a client is asked to wait after `resource_exhausted`. */
const RESOURCE_RETRY_AFTER_SECONDS = 5;

/** 503 `resource_exhausted` when `err` is the system running out of a resource (descriptors, memory), else null. */
export function exhaustedResponse(err: unknown, logger: Logger): Response | null {
  const resource = exhaustedResource(err);
  if (resource === null) return null;
  logger.warn("out of system resources", { code: resource, error: err instanceof Error ? err.message : String(err) });
  return jsonResponse({ error: `The daemon is out of system resources (${resource}); try again shortly`, code: "resource_exhausted" }, 503, {
    "Retry-After": String(RESOURCE_RETRY_AFTER_SECONDS),
  });
}

interface ElysiaValidationLike {
  type?: string;
  customError?: unknown;
  valueError?: { path?: string; message?: string };
}

function validationResponse(err: ElysiaValidationLike, logger: Logger): Response {
  if (err.type === "response") {
    logger.error("response failed its own schema", { path: err.valueError?.path, problem: err.valueError?.message });
    return jsonResponse({ error: "Internal server error" }, 500);
  }
  if (typeof err.customError === "string") return jsonResponse({ error: err.customError }, 400);
  if (err.customError && typeof err.customError === "object") return jsonResponse(err.customError, 400);
  const where = err.valueError?.path ? ` at ${err.valueError.path}` : "";
  const what = err.type ?? "request";
  return jsonResponse({ error: `Invalid ${what}${where}: ${err.valueError?.message ?? "does not match the schema"}`, code: "invalid_request" }, 400);
}

/** Maps anything thrown while handling a request (Elysia's own error codes included). */
export function errorResponse(code: string | number, error: unknown, logger: Logger): Response {
  const cause = code === "PARSE" && error instanceof Error ? error.cause : undefined;
  const err = cause instanceof DaemonError ? cause : error;
  if (err instanceof DaemonError) return daemonErrorResponse(err);
  switch (code) {
    case "NOT_FOUND":
      return jsonResponse({ error: "Not found", code: "route_not_found" }, 404);
    case "PARSE":
      return jsonResponse({ error: "Invalid JSON in request body" }, 400);
    case "VALIDATION":
      return validationResponse(err as ElysiaValidationLike, logger);
  }
  const status = typeof (err as { status?: unknown })?.status === "number" ? (err as { status: number }).status : 500;
  if (status >= 400 && status < 500) return jsonResponse({ error: "Bad request", code: "invalid_request" }, status);
  const exhausted = exhaustedResponse(err, logger);
  if (exhausted !== null) return exhausted;
  logger.error("unhandled error", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  if (err instanceof Error && err.stack) logger.debug("stack", { stack: err.stack });
  return jsonResponse({ error: "Internal server error" }, 500);
}
