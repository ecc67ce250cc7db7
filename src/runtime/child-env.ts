/**
 * The environment an agent child starts with: the daemon's own, minus what the child must never
 * see (the daemon's bearer token and other daemon-private variables), plus the profile's additions.
 * A family marker the daemon inherited (it runs under another daemon's agent) is dropped too: the
 * child gets this daemon's own (`orphan-reaper.ts`).
 *
 * The MCP client budget reaches the child from the daemon's configuration only
 * (`--mcp-client-budget`, `--mcp-budget-mode`): the same variables inherited from the daemon's own
 * environment are dropped, so a child never runs under a budget the daemon does not report.
 * Likewise the MCP pool switch: a daemon run with `SVC_SERVE_NO_MCP_POOL=1` tells both families
 * (Qwen Code then gives each session its own MCP clients), and an inherited switch is dropped.
 */
import type { McpBudgetMode } from "../config/config.ts";
import { FAMILY_MARKER_VAR } from "./orphan-reaper.ts";

/**
 * The budget variables of each agent family that reads them: the built-in agent's (`SVC_`) and
 * Qwen Code's (`QWEN_`). The agent is known only after `initialize`, so a child gets both.
 */
const BUDGET_VARS = [
  { budget: "SVC_SERVE_MCP_CLIENT_BUDGET", mode: "SVC_SERVE_MCP_BUDGET_MODE" },
  { budget: "QWEN_SERVE_MCP_CLIENT_BUDGET", mode: "QWEN_SERVE_MCP_BUDGET_MODE" },
] as const;

/** The MCP pool switch of each family. */
const NO_POOL_VARS = ["SVC_SERVE_NO_MCP_POOL", "QWEN_SERVE_NO_MCP_POOL"] as const;

const DENIED = new Set<string>(["SVC_SERVER_TOKEN", "SVC_CLI_ENTRY", "SVC_CLI_ARGS", FAMILY_MARKER_VAR, ...BUDGET_VARS.flatMap((v) => [v.budget, v.mode]), ...NO_POOL_VARS]);
/** Runtime option variables meant for the daemon (inspectors, preloads) must not leak into agents. */
const DENIED_PREFIXES = ["BUN_INSPECT", "BUN_OPTIONS", "NODE_OPTIONS"];

export interface McpBudget {
  readonly clientBudget: number | null;
  readonly budgetMode: McpBudgetMode;
  /** The shared MCP pool is on (false: `SVC_SERVE_NO_MCP_POOL=1`). */
  readonly pool?: boolean;
}

/**
 * The budget variables for `budget`: the client budget when one is set, and the mode when there is
 * a budget or the mode is not the default `off` (an unconfigured daemon sets neither).
 */
export function mcpBudgetEnv(budget: McpBudget): Record<string, string> {
  const env: Record<string, string> = {};
  for (const names of BUDGET_VARS) {
    if (budget.clientBudget !== null) env[names.budget] = String(budget.clientBudget);
    if (budget.clientBudget !== null || budget.budgetMode !== "off") env[names.mode] = budget.budgetMode;
  }
  if (budget.pool === false) for (const name of NO_POOL_VARS) env[name] = "1";
  return env;
}

export function childEnv(base: Readonly<Record<string, string | undefined>>, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || DENIED.has(name) || DENIED_PREFIXES.some((p) => name.startsWith(p))) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
