/**
 * What the daemon knows of the agent's MCP client budget, as `/daemon/status` reads it: the
 * configured budget and mode, and the counts the agent last reported (its relayed
 * `mcp_budget_warning` / `mcp_child_refused_batch` events). A getter returning null reports nothing.
 */
import type { McpBudgetMode } from "../config/config.ts";

export interface McpBudgetState {
  /** MCP clients the agent has live. */
  readonly liveCount: number;
  /** Clients allowed (`--mcp-client-budget`); null: no budget. */
  readonly budget: number | null;
  /** Clients the agent refused for the budget. */
  readonly refusedCount: number;
  readonly mode: McpBudgetMode;
}

/** The default source: the daemon has learnt nothing of the budget. */
export const noMcpBudgetState = (): McpBudgetState | null => null;
