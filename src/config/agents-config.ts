/**
 * `svc agents [install <name>] [--registry <url>]`: the arguments and environment the agents
 * command needs, read here because only config/ reads argv and env. The registry is npm's default
 * unless `--registry` or `SVC_NPM_REGISTRY` names another (the user's npm configuration is not
 * read: an install must not depend on files outside svc's agent directory).
 */
import { parseArgs } from "node:util";
import { AGENT_NAMES, AGENT_PACKAGES, isAgentName, isInstallable, type InstallableAgent } from "./agent-catalog.ts";
import { loadDaemonSettings } from "./settings.ts";
import type { AgentSettings } from "./agent-settings.ts";
import { BootError } from "./boot-error.ts";
import { DEFAULT_NPM_REGISTRY, parseRegistry, registryFromEnv } from "./npm-registry.ts";
import { dataDirFor } from "./config.ts";
import { join } from "node:path";


const INSTALLABLE = Object.keys(AGENT_PACKAGES).join(", ");

export const AGENTS_USAGE = `usage:
  svc agents                          list the known agents, their pinned package and install state
  svc agents install <name> [--registry <url>]
                                      install the pinned package into svc's agent directory
                                      (<name>: ${INSTALLABLE}; registry: SVC_NPM_REGISTRY, else ${DEFAULT_NPM_REGISTRY})
`;

export type AgentsCommand = { readonly kind: "list" } | { readonly kind: "install"; readonly agent: InstallableAgent } | { readonly kind: "help" };

export interface AgentsConfig {
  readonly command: AgentsCommand;
  readonly dataDir: string;
  readonly settings: AgentSettings;
  readonly registry: string;
  /** Proxy variables handed to the installer as the user set them (an install behind a proxy must work). */
  readonly proxyEnv: Readonly<Record<string, string>>;
  readonly execPath: string;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
}

const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];

export function resolveAgentsConfig(inputs: { args: readonly string[]; env: Readonly<Record<string, string | undefined>>; execPath?: string; platform?: NodeJS.Platform; arch?: string }): AgentsConfig {
  let parsed;
  try {
    parsed = parseArgs({ args: [...inputs.args], options: { registry: { type: "string" }, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: true });
  } catch (err) {
    throw new BootError((err as Error).message.split("\n")[0]!);
  }
  const [verb, name, ...extra] = parsed.positionals;
  let command: AgentsCommand;
  if (parsed.values.help) command = { kind: "help" };
  else if (verb === undefined) command = { kind: "list" };
  else if (verb !== "install") throw new BootError(`unknown subcommand ${JSON.stringify(verb)} (try svc agents --help)`);
  else if (name === undefined) throw new BootError(`install needs an agent name: one of ${INSTALLABLE}`);
  else if (extra.length > 0) throw new BootError(`install takes one agent name, got ${parsed.positionals.length - 1}`);
  else if (!isAgentName(name) || !isInstallable(name))
    throw new BootError(`${JSON.stringify(name)} is not an agent svc installs: one of ${INSTALLABLE}${isAgentName(name) ? ` (${name} needs no install)` : ""} — known agents: ${AGENT_NAMES.join(", ")}`);
  else command = { kind: "install", agent: name };

  const { env } = inputs;
  const platform = inputs.platform ?? process.platform;
  const dataDir = dataDirFor(env, platform);
  const registry = parsed.values.registry !== undefined
    ? parseRegistry(parsed.values.registry, "--registry")
    : registryFromEnv(env);
  const { agent, agentPaths, agentEndpoints } = loadDaemonSettings(join(dataDir, "settings.json"), env);
  return {
    command,
    dataDir,
    settings: { agent, agentPaths, agentEndpoints },
    registry,
    proxyEnv: Object.fromEntries(PROXY_VARS.flatMap((k) => (env[k] ? [[k, env[k]!]] : []))),
    execPath: inputs.execPath ?? process.execPath,
    platform,
    arch: inputs.arch ?? process.arch,
  };
}
