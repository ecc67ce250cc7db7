/**
 * TEMPORARY: what the contract test (`contract.ts`) lets through because a route does not declare
 * it yet. Both lists are keyed by operation (`METHOD /path/{template}`, as in `/openapi.json`).
 * They list the state of the routes when the contract test landed (issue 10); task A (branch
 * h-openapi) declares the missing schemas. Once it is merged, delete the entries whose routes now
 * declare everything, aiming for two empty lists, and keep them empty: a new route declares its
 * responses (issue 10 rule) rather than joining a list here.
 */

/**
 * Hollow routes: a status they answer is not declared, or declared without a body schema. "*"
 * means any such status (the route declares nothing, or only its success); a list names the
 * statuses. A body that contradicts a schema the route does declare is never skipped here.
 */
export const UNDECLARED_STATUSES: Readonly<Record<string, readonly number[] | "*">> = {};

/**
 * Statuses a route declares with its own body schema, which it also answers with the daemon's
 * general error body `{error, code?, …}` (from the front door, the JSON body reader, or Elysia's
 * own validation), undeclared. Found by the contract test; the route's schema should declare both
 * bodies (a union), or the route should answer its own shape.
 */
export const UNDECLARED_ERROR_BODIES: Readonly<Record<string, readonly number[]>> = {};
