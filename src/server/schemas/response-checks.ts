/**
 * Response schemas are a contract the tests hold the daemon to (the OpenAPI lint, and the contract
 * test that checks every response the HTTP suites receive against the document), not a gate a live
 * answer must pass. Elysia checks a returned value against its status's schema; on a mismatch it
 * throws a response ValidationError, overwriting the status with 422, and the error mapper can only
 * answer 500: a good answer (a prompt admitted, a session created) would be lost to a stale schema.
 * So every response schema is marked `noValidate`: the value is still normalised to its schema
 * (TypeBox `Clean`: members it does not declare are dropped, so nothing undeclared ever leaves the
 * daemon) but never refused. The mark is not enumerable, so it stays out of the OpenAPI document.
 */
import { API_MODELS } from "./api-models.ts";
import { compileLazilyWhen } from "./lazy-compile.ts";
import { responseSchemas } from "./route-responses.ts";

interface RouteLike {
  hooks?: { response?: unknown };
}

function markUnchecked(schema: unknown): void {
  if (typeof schema === "string") schema = API_MODELS[schema as keyof typeof API_MODELS];
  if (typeof schema !== "object" || schema === null || Object.hasOwn(schema, "noValidate")) return;
  Object.defineProperty(schema, "noValidate", { value: true, enumerable: false });
}

const isUnchecked = (schema: object): boolean => Object.hasOwn(schema, "noValidate");

/**
 * Marks every response schema of `routes`; call before any route first runs (its handler is
 * compiled then). A marked schema's check, never called, is compiled only if it is (lazy-compile.ts).
 */
export function uncheckResponses(routes: readonly RouteLike[]): void {
  compileLazilyWhen(isUnchecked);
  for (const route of routes) for (const schema of responseSchemas(route.hooks?.response)) markUnchecked(schema);
}
