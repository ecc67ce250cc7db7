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

/** Distinct refused servers remembered per child; more are still counted as one beyond the bound. */
const MAX_REFUSED_NAMES = 1024;

/**
 * Folds a live child's relayed budget events into its state: the counts of the latest event, and
 * the distinct servers refused so far (a discovery pass re-reports the servers it refuses again, so
 * names are counted once).
 */
export class McpBudgetTracker {
  private last: { liveCount: number; budget: number; mode: McpBudgetMode } | null = null;
  private readonly refused = new Set<string>();
  private overflow = false;

  record(type: "mcp_budget_warning" | "mcp_child_refused_batch", data: Record<string, unknown>): void {
    this.last = { liveCount: data.liveCount as number, budget: data.budget as number, mode: data.mode as McpBudgetMode };
    if (type !== "mcp_child_refused_batch") return;
    for (const server of data.refusedServers as { name: string }[]) {
      if (this.refused.size < MAX_REFUSED_NAMES) this.refused.add(server.name);
      else if (!this.refused.has(server.name)) this.overflow = true;
    }
  }

  get state(): McpBudgetState | null {
    return this.last && { ...this.last, refusedCount: this.refused.size + (this.overflow ? 1 : 0) };
  }
}

/** The state that most needs attention: any refusal first, then the fullest budget. */
export function worstBudget(states: readonly (McpBudgetState | null)[]): McpBudgetState | null {
  const fill = (s: McpBudgetState) => (s.refusedCount > 0 ? Infinity : s.budget ? s.liveCount / s.budget : 0);
  let worst: McpBudgetState | null = null;
  for (const s of states) if (s !== null && (worst === null || fill(s) > fill(worst))) worst = s;
  return worst;
}
