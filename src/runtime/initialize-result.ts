/**
 * The shape an `initialize` result must have before the daemon relies on it: an object with an
 * integer `protocolVersion`, and `agentInfo`, `agentCapabilities`, `authMethods` of the right kind
 * when present. Anything else (`null`, a string, an array) is a broken agent: the start fails with
 * `agent_start_failed` instead of a later TypeError with the child left running.
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with `result` as an initialize result, or null when it is one. */
export function initializeResultProblem(result: unknown): string | null {
  if (!isObject(result)) return `expected an object, got ${result === null ? "null" : Array.isArray(result) ? "an array" : typeof result}`;
  if (typeof result.protocolVersion !== "number" || !Number.isInteger(result.protocolVersion)) return "protocolVersion is not an integer";
  if (result.agentInfo != null) {
    if (!isObject(result.agentInfo)) return "agentInfo is not an object";
    if (result.agentInfo.name !== undefined && typeof result.agentInfo.name !== "string") return "agentInfo.name is not a string";
  }
  if (result.agentCapabilities != null && !isObject(result.agentCapabilities)) return "agentCapabilities is not an object";
  if (result.authMethods != null && !Array.isArray(result.authMethods)) return "authMethods is not an array";
  return null;
}

