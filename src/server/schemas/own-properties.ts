/**
 * A schema's declared members are its OWN `properties`, never what they inherit. Normalisation
 * (TypeBox `Value.Clean`, app.ts) keeps a member when `key in schema.properties`, so a member named
 * after an `Object.prototype` member (`constructor`, `toString`, `__proto__`, …) counted as declared
 * on every object schema: it was kept (into the queue, the event echo, the journal, the agent), and
 * where the schema is closed, refused as "Unexpected property" instead of dropped like any other
 * undeclared member. Giving every `properties` map a null prototype makes `in` see own members
 * only, so unknown members are dropped whatever their name. The validators keep working: they read
 * the map with `Object.keys`/`Object.entries`, never through its prototype.
 *
 * A query schema is the exception Elysia makes: it validates a copy (built to coerce strings, with
 * plain `properties`) and closes the copy when the schema does not say otherwise, so `?constructor=1`
 * would still be refused while `?foo=1` is dropped. Query schemas are therefore open
 * (`additionalProperties: true`): a member the route does not declare is not cleaned, not refused,
 * and never read, whatever its name. (Headers Elysia already keeps open; path params are the
 * route's own.)
 */
import { API_MODELS } from "./api-models.ts";
import { responseSchemas } from "./route-responses.ts";

/**
 * The keywords under which a schema holds further schemas: a name → schema map, one schema, or a
 * list of them. A null-prototype map, so only these names are keywords.
 */
const SUBSCHEMAS: Readonly<Record<string, "map" | "one" | "list">> = Object.assign(Object.create(null), {
  properties: "map",
  patternProperties: "map",
  $defs: "map",
  dependentSchemas: "map",
  items: "one",
  additionalProperties: "one",
  not: "one",
  if: "one",
  then: "one",
  else: "one",
  contains: "one",
  unevaluatedProperties: "one",
  anyOf: "list",
  oneOf: "list",
  allOf: "list",
  prefixItems: "list",
});

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Walks the keywords the schema has (a handful), not every keyword that could hold a schema: the
 * walk covers every route's schemas while the core is built, on the way to the first answer.
 */
function ownPropertiesOnly(schema: unknown, seen: Set<object>): void {
  if (typeof schema === "string") schema = API_MODELS[schema as keyof typeof API_MODELS];
  if (!isSchema(schema) || seen.has(schema)) return;
  seen.add(schema);
  for (const key in schema) {
    const shape = SUBSCHEMAS[key];
    if (shape === undefined) continue;
    const value = schema[key];
    if (shape === "one") ownPropertiesOnly(value, seen);
    else if (shape === "list") {
      if (Array.isArray(value)) for (const item of value) ownPropertiesOnly(item, seen);
    } else if (isSchema(value)) {
      if (key === "properties" && Object.getPrototypeOf(value) !== null) Object.setPrototypeOf(value, null);
      for (const member of Object.values(value)) ownPropertiesOnly(member, seen);
    }
  }
}

/** A query schema that does not close itself takes undeclared members (see the header). */
function openQuery(query: unknown): void {
  if (isSchema(query) && query.type === "object" && !("additionalProperties" in query)) query.additionalProperties = true;
}

interface RouteLike {
  hooks?: { body?: unknown; query?: unknown; params?: unknown; headers?: unknown; response?: unknown };
}

/**
 * Gives every `properties` map of every schema `routes` read or answer a null prototype (see the
 * header). Call before any route first runs: its validators are compiled then.
 */
export function ownPropertiesOnlyIn(routes: readonly RouteLike[]): void {
  const seen = new Set<object>();
  for (const route of routes) {
    const { body, query, params, headers, response } = route.hooks ?? {};
    openQuery(query);
    for (const schema of [body, query, params, headers, ...responseSchemas(response)]) ownPropertiesOnly(schema, seen);
  }
}
