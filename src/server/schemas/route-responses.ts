/**
 * The schemas of a route's `response` hook, as Elysia takes it: one schema (or model name) for
 * every status, or a map from status to schema (or model name).
 */
export function responseSchemas(response: unknown): unknown[] {
  if (response === undefined) return [];
  if (typeof response !== "object" || response === null || "type" in response || "anyOf" in response) return [response];
  return Object.values(response);
}
