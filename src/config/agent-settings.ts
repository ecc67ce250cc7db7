/**
 * The agent keys of `$SVC_HOME/settings.json`: `agent` (the agent to run when `--agent` is not
 * given) and `agents.<name>.path` (an absolute path to that agent's entry: the script for a script
 * agent and for `generic`, the executable for a native one), used instead of svc's own agent
 * directory. A path must be absolute here; that it is a regular file is checked before every start
 * (`runtime/cli-entry.ts`), so fixing it needs no restart. Any other key under `agents.<name>` is
 * refused: a typo must not silently run a different agent.
 */
import { isAbsolute } from "node:path";
import { AGENT_NAMES, isAgentName, type AgentName } from "./agent-catalog.ts";
import { BootError } from "./boot-error.ts";

/** Agents whose entry a settings path may name (the built-in agent is the daemon itself). */
export type PathAgent = Exclude<AgentName, "builtin">;

export interface AgentSettings {
  readonly agent: AgentName | null;
  readonly agentPaths: Readonly<Partial<Record<PathAgent, string>>>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function readAgentSettings(file: string, doc: Record<string, unknown>): AgentSettings {
  const agent = doc.agent ?? null;
  if (agent !== null && (typeof agent !== "string" || !isAgentName(agent)))
    throw new BootError(`${file}: "agent" must be one of ${AGENT_NAMES.join(", ")}`);
  const agents = doc.agents ?? {};
  if (!isObject(agents)) throw new BootError(`${file}: "agents" must be an object`);
  const agentPaths: Partial<Record<PathAgent, string>> = {};
  for (const [name, entry] of Object.entries(agents)) {
    if (!isAgentName(name) || name === "builtin")
      throw new BootError(`${file}: agents.${name}: not an agent with a path (one of ${AGENT_NAMES.filter((n) => n !== "builtin").join(", ")})`);
    if (!isObject(entry)) throw new BootError(`${file}: agents.${name} must be an object`);
    for (const key of Object.keys(entry)) if (key !== "path") throw new BootError(`${file}: agents.${name}.${key}: unknown key (only "path")`);
    if (entry.path === undefined) continue;
    if (typeof entry.path !== "string" || !isAbsolute(entry.path)) throw new BootError(`${file}: agents.${name}.path must be an absolute path`);
    agentPaths[name] = entry.path;
  }
  return { agent: agent as AgentName | null, agentPaths };
}
