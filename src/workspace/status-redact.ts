/**
 * The one place an agent's status answers are sanitized before any of it leaves the daemon (spec
 * "Status cell": no MCP env values, headers, OAuth or service-account details, provider API keys,
 * provider base addresses or env key names, skill bodies or filesystem paths, hook definitions, or
 * secret environment values). Agents do send such members: qwen 0.24.4 puts `installedPath` on
 * skills, `baseUrl` and `envKey` on providers and models, and the command, args and URL of each
 * MCP server under `config`.
 *
 * Every answer is first checked against the answer bounds of `agent-json.ts` (too deep or too large:
 * AgentAnswerError, which the callers report as a protocol error). Then:
 * 1. The shapes the spec names (MCP servers and budgets, skills, providers and models, tools, status
 *    cells) are projected onto their allowlisted members, each of the spec's type (string, boolean,
 *    integer or one of an enum): a member an agent adds, or one of another type, is never passed
 *    on. Strings kept are scrubbed (`scrubText`).
 * 2. The free-form parts (a preflight cell's `detail`, the session views) are cleaned (`clean`):
 *    secret-bearing members keep only numbers and booleans, and every string is scrubbed.
 *
 * The envelope members `v`, `workspaceCwd` and `initialized` are the daemon's, never the agent's.
 */
import { AgentAnswerError, checkBounds, clean, cleanWithin, isObject, scrubText } from "./agent-json.ts";
import type { CellStatus, StatusCell } from "./status-cell.ts";

/** Sanitizing arbitrary agent JSON (control answers too): see agent-json.ts. */
export { AgentAnswerError, clean };

/** A URL in prose (`scheme://…`): a provider's base address can hide in a model's description. */
const ADDRESS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi;
const ADDRESS_REDACTED = "[address redacted]";

const STATUSES: ReadonlySet<string> = new Set<CellStatus>(["ok", "warning", "error", "disabled", "not_started", "unknown"]);

type Json = Record<string, unknown>;

/** The spec's type of an allowlisted member: a string, a boolean, an integer, or one of an enum's values. */
type MemberType = "string" | "boolean" | "integer" | ReadonlySet<string>;
type Members = Readonly<Record<string, MemberType>>;

/** `value` if it is of `type` (strings scrubbed), else undefined. */
function typed(value: unknown, type: MemberType, secrets: readonly string[]): unknown {
  if (type === "string") return typeof value === "string" ? scrubText(value, secrets) : undefined;
  if (type === "boolean") return typeof value === "boolean" ? value : undefined;
  if (type === "integer") return Number.isSafeInteger(value) ? value : undefined;
  return typeof value === "string" && type.has(value) ? value : undefined;
}

/** The allowlisted members of `value` that are present and of their type. */
function pick(value: unknown, members: Members, secrets: readonly string[]): Json {
  const out: Json = {};
  if (!isObject(value)) return out;
  for (const [name, type] of Object.entries(members)) {
    const v = Object.hasOwn(value, name) ? typed(value[name], type, secrets) : undefined;
    if (v !== undefined) out[name] = v;
  }
  return out;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A status that is none of the spec's values (an agent's own word for it) reads `unknown`. */
const status = (value: unknown): CellStatus => (typeof value === "string" && STATUSES.has(value) ? (value as CellStatus) : "unknown");

const CELL: Members = { kind: "string", error: "string", errorKind: "string", hint: "string" };

/** A status cell: the shared members, and `extra` ones of its kind. */
function cell(value: unknown, secrets: readonly string[], extra: Members = {}, kind?: string): StatusCell {
  const picked = pick(value, { ...CELL, ...extra }, secrets);
  return { ...picked, kind: kind ?? (typeof picked.kind === "string" ? picked.kind : "unknown"), status: status(isObject(value) ? value.status : undefined) };
}

/** The envelope's `errors`, when the agent sent any. */
function errors(answer: unknown, secrets: readonly string[]): { errors?: StatusCell[] } {
  const cells = list(isObject(answer) ? answer.errors : undefined).map((e) => cell(e, secrets));
  return cells.length > 0 ? { errors: cells } : {};
}

/** Checks an answer's bounds, then projects it. */
const bounded =
  <A extends unknown[], R>(project: (answer: unknown, secrets: readonly string[], ...rest: A) => R) =>
  (answer: unknown, secrets: readonly string[], ...rest: A): R => {
    checkBounds(answer);
    return project(answer, secrets, ...rest);
  };

const DISCOVERY_STATES: ReadonlySet<string> = new Set(["not_started", "in_progress", "completed"]);
const BUDGET_MODES: ReadonlySet<string> = new Set(["enforce", "warn", "off"]);
const MCP_SERVER: Members = {
  name: "string",
  mcpStatus: "string",
  transport: "string",
  disabled: "boolean",
  description: "string",
  extensionName: "string",
  disabledReason: "string",
  approvalState: "string",
  authenticationState: "string",
  requiresAuth: "boolean",
  configOrigin: "string",
  source: "string",
  removable: "boolean",
  entryCount: "integer",
  resourceCount: "integer",
  promptCount: "integer",
};
const MCP_BUDGET: Members = { scope: "string", liveCount: "integer", budget: "integer", mode: BUDGET_MODES, refusedCount: "integer" };
const MCP: Members = { discoveryState: DISCOVERY_STATES, clientCount: "integer", clientBudget: "integer", budgetMode: BUDGET_MODES };

/** `GET /workspace/mcp` members from the agent's answer. */
export const redactMcp = bounded((answer, secrets): Json => {
  const a = isObject(answer) ? answer : {};
  return {
    ...pick(a, MCP, secrets),
    servers: list(a.servers).map((s) => cell(s, secrets, MCP_SERVER, "mcp_server")),
    budgets: list(a.budgets).map((b) => cell(b, secrets, MCP_BUDGET, "mcp_budget")),
    ...errors(a, secrets),
  };
});

const SKILL: Members = {
  name: "string",
  description: "string",
  level: "string",
  modelInvocable: "boolean",
  argumentHint: "string",
  disabledReason: "string",
  userInvocable: "boolean",
  extensionName: "string",
  extensionDisplayName: "string",
};

/** `GET /workspace/skills` members: never a skill's body or where it is installed. */
export const redactSkills = bounded((answer, secrets): Json => {
  const a = isObject(answer) ? answer : {};
  return { skills: list(a.skills).map((s) => cell(s, secrets, SKILL, "skill")), ...errors(a, secrets) };
});

const MODEL: Members = { modelId: "string", baseModelId: "string", name: "string", description: "string", contextLimit: "integer", isCurrent: "boolean", isRuntime: "boolean" };

function model(value: unknown, secrets: readonly string[]): Json {
  const m = pick(value, MODEL, secrets);
  const modelId = typeof m.modelId === "string" ? m.modelId : "";
  return {
    modelId,
    baseModelId: typeof m.baseModelId === "string" ? m.baseModelId : modelId,
    name: typeof m.name === "string" ? m.name : modelId,
    description: typeof m.description === "string" ? m.description : null,
    contextLimit: Number.isSafeInteger(m.contextLimit) ? m.contextLimit : null,
    isCurrent: m.isCurrent === true,
    isRuntime: m.isRuntime === true,
  };
}

/** Every string of `value` without URLs. */
function withoutAddresses<T>(value: T): T {
  if (typeof value === "string") return value.replace(ADDRESS, ADDRESS_REDACTED) as T;
  if (Array.isArray(value)) return value.map(withoutAddresses) as T;
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutAddresses(v)])) as T;
}

/**
 * `GET /workspace/providers` members: never a base address (not even inside a description, where
 * the built-in agent names it), an API key or the name of its variable.
 */
export const redactProviders = bounded((answer, secrets): Json => withoutAddresses(providerMembers(answer, secrets)));

function providerMembers(answer: unknown, secrets: readonly string[]): Json {
  const a = isObject(answer) ? answer : {};
  const current = pick(a.current, { authType: "string", modelId: "string" }, secrets);
  return {
    ...(Object.keys(current).length > 0 ? { current } : {}),
    providers: list(a.providers).map((p) => ({
      ...cell(p, secrets, { authType: "string" }, "model_provider"),
      current: isObject(p) && p.current === true,
      models: list(isObject(p) ? p.models : undefined).map((m) => model(m, secrets)),
    })),
    ...errors(a, secrets),
  };
}

const TOOL: Members = { name: "string", displayName: "string", description: "string" };

/** `GET /workspace/tools` members. */
export const redactTools = bounded((answer, secrets): Json => {
  const a = isObject(answer) ? answer : {};
  return { tools: list(a.tools).map((t) => ({ ...pick(t, TOOL, secrets), enabled: isObject(t) && t.enabled !== false })), ...errors(a, secrets) };
});

/** The agent's `locality: "acp"` preflight cells (their `detail`, an object, is free-form, so cleaned only). */
export const redactPreflight = bounded((answer, secrets): { cells: StatusCell[]; errors?: StatusCell[] } => {
  const a = isObject(answer) ? answer : {};
  return {
    cells: list(a.cells).map((c) => {
      const detail = isObject(c) && isObject(c.detail) ? { detail: cleanWithin(c.detail, secrets) } : {};
      return { ...cell(c, secrets), ...detail, locality: "acp" };
    }),
    ...errors(a, secrets),
  };
});

const HOOK: Members = { eventName: "string", source: "string", matcher: "string", sequential: "boolean", enabled: "boolean", disabledReason: "string", hookId: "string" };
/** Of a hook's `config`, never its command, URL, headers, env or prompt: the hook definition stays with the agent. */
const HOOK_CONFIG: Members = { type: "string", name: "string", description: "string", timeout: "integer" };
const HOOK_EVENT: Members = { description: "string", matcherKind: "string" };
/** Event names kept from an agent's `events` map (the reference lists about 25). */
const MAX_HOOK_EVENTS = 64;

/** A hooks listing's members (`GET /workspace/hooks`, `GET /session/:id/hooks`): each hook's event, matcher, source and state, never its definition. */
export const redactHooks = bounded((answer, secrets): Json => {
  const a = isObject(answer) ? answer : {};
  const events = isObject(a.events) ? Object.entries(a.events).slice(0, MAX_HOOK_EVENTS) : [];
  return {
    disabled: a.disabled === true,
    hooks: list(a.hooks).map((h) => ({ kind: "hook", ...pick(h, HOOK, secrets), config: pick(isObject(h) ? h.config : undefined, HOOK_CONFIG, secrets), enabled: isObject(h) && h.enabled !== false })),
    ...(isObject(a.events) ? { events: Object.fromEntries(events.map(([name, info]) => [scrubText(name, secrets), pick(info, HOOK_EVENT, secrets)])) } : {}),
    ...errors(a, secrets),
  };
});

/**
 * A session view (tasks, stats, LSP, context usage) is free-form: cleaned only. Resources hold the
 * skills and MCP snapshots; hooks are projected as the workspace's (`redactHooks`). An answer that
 * is not an object, or beyond the answer bounds, throws AgentAnswerError.
 */
export function redactSessionView(view: string, answer: unknown, secrets: readonly string[]): Json {
  checkBounds(answer);
  if (!isObject(answer)) throw new AgentAnswerError(`the agent answered ${view} with something that is not an object`);
  if (view === "hooks") return redactHooks(answer, secrets);
  const cleaned = cleanWithin(answer, secrets) as Json;
  return view === "resources" ? { ...cleaned, skills: redactSkills(answer.skills, secrets), mcp: redactMcp(answer.mcp, secrets) } : cleaned;
}
