/**
 * An object schema whose undeclared members are part of the answer (an agent's fields, a status
 * cell's extras). Response schemas are enforced at runtime with TypeBox normalisation (app.ts): a
 * returned object loses, in place, every member its schema does not declare, unless
 * `additionalProperties` is itself a schema. `additionalProperties: true` is not enough; this is.
 */
import { t } from "elysia";

type Properties = Parameters<typeof t.Object>[0];

export const openObject = <P extends Properties>(properties: P, options: { description?: string } = {}) =>
  t.Object(properties, { ...options, additionalProperties: t.Unknown() });
