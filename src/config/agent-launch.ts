/**
 * Which agent the daemon runs and how its children are started (`Config.agent`), decided once at
 * boot. The agent is, first to last: `--agent <name>`; `generic` when `SVC_CLI_ENTRY` is set (how
 * every agent but the built-in one was run before `--agent` existed, kept as is); settings `agent`;
 * `builtin`. Its entry (spec §2: the executable search path is never consulted):
 * - `builtin`: the daemon's own script (`process.argv[1]`; the embedded entry inside the binary);
 * - `generic`: `SVC_CLI_ENTRY`, else settings `agents.generic.path`; arguments `SVC_CLI_ARGS`
 *   (default `--acp`), as before;
 * - an installable agent (`agent-catalog.ts`): settings `agents.<name>.path`, else its entry in
 *   svc's own agent directory (`<dataDir>/agents/<name>/node_modules/…`), with the catalog's arguments.
 * Whether the entry exists is checked before every start (`runtime/cli-entry.ts`), not here.
 * Settings `agents.codex.model` fails boot when codex runs: codex-acp ignores the endpoint variables
 * and would send the prompts and the user's key to api.openai.com (runtime/agent-profiles/codex.ts).
 */
import { resolve } from "node:path";
import { AGENT_PACKAGES, installedEntry, isInstallable, type AgentName, type AgentRuntime } from "./agent-catalog.ts";
import type { AgentSettings, ModelEndpoint } from "./agent-settings.ts";
import { BootError } from "./boot-error.ts";

/** Where the entry's path came from: `SVC_CLI_ENTRY`, the daemon's own argv, settings `agents.<name>.path`, or svc's agent directory. */
export type EntrySource = "env" | "argv" | "settings" | "agent-dir";

export interface AgentSelection {
  readonly agent: AgentName;
  /** Settings `agents.<agent>.model`, which the agent's profile turns into the child's variables; null: none. */
  readonly modelEndpoint: ModelEndpoint | null;
  readonly cliEntry: { readonly path: string; readonly source: EntrySource } | null;
  readonly cliArgs: readonly string[];
  readonly runtime: AgentRuntime;
}

export interface AgentSelectionInputs {
  /** `--agent`, or null when not given. */
  readonly flag: AgentName | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly settings: AgentSettings;
  readonly dataDir: string;
  readonly cwd: string;
  readonly selfEntry: string | undefined;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
}

/** `SVC_CLI_ARGS`: a JSON array of strings, or whitespace-separated words. */
function parseCliArgs(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return ["--acp"];
  if (raw.trim().startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new BootError("SVC_CLI_ARGS: starts with '[' but is not a JSON array");
    }
    if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string"))
      throw new BootError("SVC_CLI_ARGS: must be a JSON array of strings");
    return parsed;
  }
  return raw.trim().split(/\s+/);
}

export function selectAgent(inputs: AgentSelectionInputs, warnings: string[]): AgentSelection {
  const { env, settings } = inputs;
  const entryFromEnv = env.SVC_CLI_ENTRY && env.SVC_CLI_ENTRY !== "" ? resolve(inputs.cwd, env.SVC_CLI_ENTRY) : null;
  const agent: AgentName = inputs.flag ?? (entryFromEnv !== null ? "generic" : (settings.agent ?? "builtin"));
  const modelEndpoint = agent === "builtin" ? null : (settings.agentEndpoints[agent] ?? null);
  if (agent === "codex" && modelEndpoint !== null)
    throw new BootError("agents.codex.model is not supported: codex does not take its endpoint from svc; set it in codex's own config.toml (a model_provider in $CODEX_HOME/config.toml) and remove agents.codex.model from settings.json");
  // Parsed whatever the agent, so a malformed value fails boot as it always did.
  const envArgs = parseCliArgs(env.SVC_CLI_ARGS);

  if (agent !== "generic" && entryFromEnv !== null) warnings.push(`SVC_CLI_ENTRY is ignored: --agent ${agent} runs its own entry (use --agent generic to run SVC_CLI_ENTRY)`);
  if (agent === "generic") {
    const fromSettings = settings.agentPaths.generic;
    if (entryFromEnv === null && fromSettings === undefined)
      throw new BootError("--agent generic needs the agent's entry script: set SVC_CLI_ENTRY or agents.generic.path in settings.json");
    const cliEntry = entryFromEnv !== null ? { path: entryFromEnv, source: "env" as const } : { path: fromSettings!, source: "settings" as const };
    return { agent, modelEndpoint, cliEntry, cliArgs: envArgs, runtime: "script" };
  }
  if (!isInstallable(agent)) return { agent, modelEndpoint, cliEntry: inputs.selfEntry ? { path: inputs.selfEntry, source: "argv" } : null, cliArgs: envArgs, runtime: "script" };

  if (env.SVC_CLI_ARGS !== undefined && env.SVC_CLI_ARGS.trim() !== "") warnings.push(`SVC_CLI_ARGS is ignored: --agent ${agent} runs with its own arguments`);
  const pkg = AGENT_PACKAGES[agent];
  const configured = settings.agentPaths[agent];
  const cliEntry = configured !== undefined
    ? { path: configured, source: "settings" as const }
    : { path: installedEntry(inputs.dataDir, agent, inputs.platform, inputs.arch), source: "agent-dir" as const };
  return { agent, modelEndpoint, cliEntry, cliArgs: pkg.args, runtime: pkg.runtime };
}
