/**
 * The error statuses an operation declares, each answered with a named error body. Every route sits
 * behind the front door, whose gates answer before any handler runs; a route adds what its own
 * handler and body reader can answer.
 */
import { ERROR_BODY, FILE_ROUTE_ERROR, FS_ERROR_BODY } from "./api-models.ts";

/**
 * What the front door and the app's error mapper can answer on any route: 400 malformed URL
 * encoding (or an unusable Host on a non-loopback bind), 401 missing/wrong bearer token or
 * `token_required` on a strict route, 403 CORS or Host refusal, 413 `Content-Length` over the cap,
 * 429 rate limit, 500 internal failure, 503 connection cap or `resource_exhausted`.
 */
const FRONT_DOOR = [400, 401, 403, 413, 429, 500, 503] as const;

/** What reading a request body adds: 408 `request_body_timeout` (400/413 are already declared). */
const BODY = [408] as const;

export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 422 | 429 | 500 | 501 | 502 | 503 | 504;

export interface ErrorOptions {
  /** The route reads a request body. */
  readonly body?: boolean;
  /** Further statuses the handler itself answers. */
  readonly also?: readonly ErrorStatus[];
}

function statuses({ body = false, also = [] }: ErrorOptions): ErrorStatus[] {
  return [...new Set<ErrorStatus>([...FRONT_DOOR, ...(body ? BODY : []), ...also])].sort((a, b) => a - b);
}

/** A route's error statuses, each naming the model of its body. */
export type ErrorResponses<Model extends string> = { readonly [status: number]: Model };

/** `{status: "ErrorBody"}` for every error status of a route answering daemon errors. */
export function errorResponses(options: ErrorOptions = {}): ErrorResponses<typeof ERROR_BODY> {
  return Object.fromEntries(statuses(options).map((s) => [s, ERROR_BODY]));
}

/**
 * The same statuses as OpenAPI response objects, for a route that declares its responses in
 * `detail.responses` (a success that is not JSON: the generator gives a `response` schema only a
 * JSON or text/plain media type, and a `response` hook replaces `detail.responses` whole).
 */
export function errorResponseObjects(options: ErrorOptions = {}): Record<number, { description: string; content: { "application/json": { schema: { $ref: string } } } }> {
  const body = { description: "A daemon error", content: { "application/json": { schema: { $ref: `#/components/schemas/${ERROR_BODY}` } } } } as const;
  return Object.fromEntries(statuses(options).map((s) => [s, body]));
}

/**
 * The filesystem routes' error statuses: `own` are those their handlers answer with `FsErrorBody`.
 * Where the front door or the body reader can answer the same status with a daemon error, the
 * status declares either body (`FileRouteError`).
 */
export function fsErrorResponses(own: readonly ErrorStatus[], options: ErrorOptions = {}): ErrorResponses<typeof ERROR_BODY | typeof FS_ERROR_BODY | typeof FILE_ROUTE_ERROR> {
  const out: Record<number, typeof ERROR_BODY | typeof FS_ERROR_BODY | typeof FILE_ROUTE_ERROR> = { ...errorResponses(options) };
  for (const s of own) out[s] = out[s] === undefined ? FS_ERROR_BODY : FILE_ROUTE_ERROR;
  return out;
}
