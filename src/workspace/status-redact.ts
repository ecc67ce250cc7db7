/**
 * The one place an agent's status answers are sanitized before any of it leaves the daemon (spec
 * "Status cell": no MCP env values, headers, OAuth or service-account details, provider API keys,
 * provider base addresses or env key names, skill bodies or filesystem paths, hook definitions, or
 * secret environment values). Agents do send such members: qwen 0.24.4 puts `installedPath` on
 * skills, `baseUrl` and `envKey` on providers and models, and the command, args and URL of each
 * MCP server under `config`.
 *
 * Two layers, both applied to every answer:
 * 1. The shapes the spec names (MCP servers and budgets, skills, providers and models, tools, status
 *    cells) are projected onto their allowlisted members: a member an agent adds is never passed on.
 * 2. Every value kept is walked (`clean`): members whose names mark them as secret-bearing are
 *    dropped at any depth (that is all the sanitizing the free-form parts get: a cell's `detail`,
 *    the session views), and every string has the daemon's known secret values replaced.
 *
 * The envelope members `v`, `workspaceCwd` and `initialized` are the daemon's, never the agent's.
 */
import { redactSecrets } from "../logging/redact.ts";
import { SECRET_NAMES } from "./env-cells.ts";
import type { CellStatus, StatusCell } from "./status-cell.ts";

/**
 * Names of members that carry credentials, addresses, paths, bodies, definitions or the names of
 * environment variables (qwen's auth cell: `envVarCandidates`, `presentVar`), at any depth.
 */
const SECRET_MEMBER =
  /^(environment|headers?|credentials?|token|secret|password|authProviderType|targetAudience|body|content|hooks?|args|command|config)$|env|oauth|service_?account|(key|token|secret|password|path|paths|url|uri|vars?|variables?)$/i;

/**
 * A secret-bearing environment variable's name in prose (`CORP_API_KEY`, `GITHUB_TOKEN`, …): the
 * spec keeps env key names out of status payloads. The spec's whitelisted names stay: `/workspace/env`
 * publishes them anyway, and a hint must be able to say which one to set.
 */
const SECRET_VARIABLE = /\b[A-Z][A-Z0-9_]*_(?:API_KEY|KEY|TOKEN|SECRET|PASSWORD)\b/g;
const PUBLIC_VARIABLES: ReadonlySet<string> = new Set(SECRET_NAMES);
const hideVariable = (name: string) => (PUBLIC_VARIABLES.has(name) ? name : "[variable redacted]");

/** A URL in prose (`scheme://…`): a provider's base address can hide in a model's description. */
const ADDRESS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi;
const ADDRESS_REDACTED = "[address redacted]";

const STATUSES: ReadonlySet<string> = new Set<CellStatus>(["ok", "warning", "error", "disabled", "not_started", "unknown"]);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A deep copy of `value` without secret-bearing members, its strings cleared of `secrets`. */
export function clean(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redactSecrets(value, secrets).replace(SECRET_VARIABLE, hideVariable);
  if (Array.isArray(value)) return value.map((v) => clean(v, secrets));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [name, member] of Object.entries(value)) if (!SECRET_MEMBER.test(name)) out[name] = clean(member, secrets);
  return out;
}

/** The allowlisted members of `value` that are present, each cleaned. */
function pick(value: unknown, members: readonly string[], secrets: readonly string[]): Json {
  const out: Json = {};
  if (!isObject(value)) return out;
  for (const name of members) if (Object.hasOwn(value, name) && value[name] !== undefined) out[name] = clean(value[name], secrets);
  return out;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A status that is none of the spec's values (an agent's own word for it) reads `unknown`. */
const status = (value: unknown): CellStatus => (typeof value === "string" && STATUSES.has(value) ? (value as CellStatus) : "unknown");

const CELL = ["kind", "status", "error", "errorKind", "hint"] as const;

/** A status cell: the shared members, and `extra` ones of its kind. */
function cell(value: unknown, secrets: readonly string[], extra: readonly string[] = [], kind?: string): StatusCell {
  const picked = pick(value, [...CELL, ...extra], secrets);
  return { ...picked, kind: kind ?? (typeof picked.kind === "string" ? picked.kind : "unknown"), status: status(picked.status) };
}

/** The envelope's `errors`, when the agent sent any. */
function errors(answer: unknown, secrets: readonly string[]): { errors?: StatusCell[] } {
  const cells = list(isObject(answer) ? answer.errors : undefined).map((e) => cell(e, secrets));
  return cells.length > 0 ? { errors: cells } : {};
}

const DISCOVERY_STATES: ReadonlySet<string> = new Set(["not_started", "in_progress", "completed"]);
const BUDGET_MODES: ReadonlySet<string> = new Set(["enforce", "warn", "off"]);
const MCP_SERVER = ["name", "mcpStatus", "transport", "disabled", "description", "extensionName", "disabledReason", "approvalState", "authenticationState", "requiresAuth", "configOrigin", "source", "removable", "entryCount", "resourceCount", "promptCount"];
const MCP_BUDGET = ["scope", "liveCount", "budget", "mode", "refusedCount"];

/** `GET /workspace/mcp` members from the agent's answer. */
export function redactMcp(answer: unknown, secrets: readonly string[]): Json {
  const a = isObject(answer) ? answer : {};
  const counts = pick(a, ["clientCount", "clientBudget"], secrets);
  return {
    ...(DISCOVERY_STATES.has(a.discoveryState as string) ? { discoveryState: a.discoveryState } : {}),
    ...Object.fromEntries(Object.entries(counts).filter(([, n]) => Number.isSafeInteger(n))),
    ...(BUDGET_MODES.has(a.budgetMode as string) ? { budgetMode: a.budgetMode } : {}),
    servers: list(a.servers).map((s) => cell(s, secrets, MCP_SERVER, "mcp_server")),
    budgets: list(a.budgets).map((b) => cell(b, secrets, MCP_BUDGET, "mcp_budget")),
    ...errors(a, secrets),
  };
}

const SKILL = ["name", "description", "level", "modelInvocable", "argumentHint", "disabledReason", "userInvocable", "extensionName", "extensionDisplayName"];

/** `GET /workspace/skills` members: never a skill's body or where it is installed. */
export function redactSkills(answer: unknown, secrets: readonly string[]): Json {
  const a = isObject(answer) ? answer : {};
  return { skills: list(a.skills).map((s) => cell(s, secrets, SKILL, "skill")), ...errors(a, secrets) };
}

const MODEL = ["modelId", "baseModelId", "name", "description", "contextLimit", "isCurrent", "isRuntime"];

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
export function redactProviders(answer: unknown, secrets: readonly string[]): Json {
  return withoutAddresses(providerMembers(answer, secrets));
}

function providerMembers(answer: unknown, secrets: readonly string[]): Json {
  const a = isObject(answer) ? answer : {};
  const current = pick(a.current, ["authType", "modelId"], secrets);
  return {
    ...(Object.keys(current).length > 0 ? { current } : {}),
    providers: list(a.providers).map((p) => ({
      ...cell(p, secrets, ["authType", "current"], "model_provider"),
      current: isObject(p) && p.current === true,
      models: list(isObject(p) ? p.models : undefined).map((m) => model(m, secrets)),
    })),
    ...errors(a, secrets),
  };
}

/** `GET /workspace/tools` members. */
export function redactTools(answer: unknown, secrets: readonly string[]): Json {
  const a = isObject(answer) ? answer : {};
  return { tools: list(a.tools).map((t) => ({ ...pick(t, ["name", "displayName", "description"], secrets), enabled: isObject(t) && t.enabled !== false })), ...errors(a, secrets) };
}

/** The agent's `locality: "acp"` preflight cells (their `detail` is free-form, so cleaned only). */
export function redactPreflight(answer: unknown, secrets: readonly string[]): { cells: StatusCell[]; errors?: StatusCell[] } {
  const a = isObject(answer) ? answer : {};
  return { cells: list(a.cells).map((c) => ({ ...cell(c, secrets, ["detail"]), locality: "acp" })), ...errors(a, secrets) };
}

/** A session view (tasks, stats, LSP, context usage) is free-form: cleaned only. Resources hold the skills and MCP snapshots. */
export function redactSessionView(view: string, answer: unknown, secrets: readonly string[]): Json {
  if (view !== "resources") return (clean(isObject(answer) ? answer : {}, secrets) as Json);
  const a = isObject(answer) ? answer : {};
  return { ...(clean(a, secrets) as Json), skills: redactSkills(a.skills, secrets), mcp: redactMcp(a.mcp, secrets) };
}
