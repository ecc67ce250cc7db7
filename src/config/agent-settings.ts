/**
 * The agent keys of `$SVC_HOME/settings.json`:
 * - `agent`: the agent to run when `--agent` is not given;
 * - `agents.<name>.path`: an absolute path to that agent's entry (the script for a script agent and
 *   for `generic`, the executable for a native one), used instead of svc's own agent directory. It
 *   must be absolute here; that it is a regular file is checked before every start
 *   (`runtime/cli-entry.ts`), so fixing it needs no restart;
 * - `agents.<name>.model`: `{baseUrl, model?, apiKeyEnv?}`, a custom model endpoint; the agent's
 *   profile turns it into the variables that agent reads (`runtime/agent-profiles/`). The key is
 *   named by variable (`apiKeyEnv`) and resolved from the daemon's environment at boot, never
 *   written in the file.
 * Any other key under `agents.<name>` is refused: a typo must not silently run a different agent.
 */
import { isAbsolute } from "node:path";
import { AGENT_NAMES, isAgentName, type AgentName } from "./agent-catalog.ts";
import { BootError } from "./boot-error.ts";

/** Agents whose entry a settings path may name (the built-in agent is the daemon itself). */
export type PathAgent = Exclude<AgentName, "builtin">;

/** A model endpoint the user configured for an agent. */
export interface ModelEndpoint {
  /** The API base URL as the agent's dialect expects it (e.g. with `/v1` for OpenAI). */
  readonly baseUrl: string;
  readonly model: string | null;
  /** Resolved from `apiKeyEnv`; null for a keyless server. */
  readonly apiKey: string | null;
}

export interface AgentSettings {
  readonly agent: AgentName | null;
  readonly agentPaths: Readonly<Partial<Record<PathAgent, string>>>;
  readonly agentEndpoints: Readonly<Partial<Record<PathAgent, ModelEndpoint>>>;
}

const AGENT_KEYS = ["path", "model"];

function readEndpoint(file: string, name: string, raw: unknown, env: Readonly<Record<string, string | undefined>>): ModelEndpoint {
  const where = `${file}: agents.${name}.model`;
  if (!isObject(raw)) throw new BootError(`${where} must be an object {baseUrl, model?, apiKeyEnv?}`);
  for (const key of Object.keys(raw)) if (!["baseUrl", "model", "apiKeyEnv"].includes(key)) throw new BootError(`${where}.${key}: unknown key (baseUrl, model, apiKeyEnv)`);
  const { baseUrl, model = null, apiKeyEnv = null } = raw;
  let url: URL | null = null;
  try {
    url = typeof baseUrl === "string" ? new URL(baseUrl) : null;
  } catch {
    // reported below
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) throw new BootError(`${where}.baseUrl must be an http(s) URL`);
  if (model !== null && (typeof model !== "string" || model.trim() === "")) throw new BootError(`${where}.model must be a non-empty string`);
  if (apiKeyEnv !== null && (typeof apiKeyEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))) throw new BootError(`${where}.apiKeyEnv must be an environment variable name`);
  const apiKey = apiKeyEnv === null ? null : (env[apiKeyEnv] ?? "");
  if (apiKey === "") throw new BootError(`${where}.apiKeyEnv: ${apiKeyEnv} is not set`);
  return { baseUrl: baseUrl as string, model: model as string | null, apiKey };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function readAgentSettings(file: string, doc: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): AgentSettings {
  const agent = doc.agent ?? null;
  if (agent !== null && (typeof agent !== "string" || !isAgentName(agent)))
    throw new BootError(`${file}: "agent" must be one of ${AGENT_NAMES.join(", ")}`);
  const agents = doc.agents ?? {};
  if (!isObject(agents)) throw new BootError(`${file}: "agents" must be an object`);
  const agentPaths: Partial<Record<PathAgent, string>> = {};
  const agentEndpoints: Partial<Record<PathAgent, ModelEndpoint>> = {};
  for (const [name, entry] of Object.entries(agents)) {
    if (!isAgentName(name) || name === "builtin")
      throw new BootError(`${file}: agents.${name}: not an agent with a path (one of ${AGENT_NAMES.filter((n) => n !== "builtin").join(", ")})`);
    if (!isObject(entry)) throw new BootError(`${file}: agents.${name} must be an object`);
    for (const key of Object.keys(entry)) if (!AGENT_KEYS.includes(key)) throw new BootError(`${file}: agents.${name}.${key}: unknown key (${AGENT_KEYS.join(", ")})`);
    if (entry.model !== undefined) agentEndpoints[name] = readEndpoint(file, name, entry.model, env);
    if (entry.path === undefined) continue;
    if (typeof entry.path !== "string" || !isAbsolute(entry.path)) throw new BootError(`${file}: agents.${name}.path must be an absolute path`);
    agentPaths[name] = entry.path;
  }
  return { agent: agent as AgentName | null, agentPaths, agentEndpoints };
}
