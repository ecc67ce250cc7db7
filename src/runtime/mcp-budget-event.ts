/**
 * The agent's MCP budget notification, `<prefix>/notify/session/mcp-budget-event` (Qwen Code
 * 0.24.4's shape; the built-in agent sends the same under `svc/`):
 *   {v: 1, sessionId, kind: "budget_warning" | "refused_batch", scope?, ...payload}
 * read into the SSE event it becomes (`mcp_budget_warning` / `mcp_child_refused_batch`). Pure: a
 * notification that does not fit the shape, or passes a bound below, reads as null and is dropped
 * whole (the caller logs it); what is kept is rebuilt from the known fields only, never passed
 * through.
 */

/** Longest string kept (a server name, transport, reason, scope, session id); a longer one makes the notification malformed. */
export const MAX_BUDGET_STRING = 256;
/** Most refused servers one batch names; a larger batch is malformed (a budget is at most 100 000, a batch covers one pass). */
export const MAX_REFUSED_SERVERS = 1024;

export type McpBudgetEventType = "mcp_budget_warning" | "mcp_child_refused_batch";

export interface McpBudgetEvent {
  /** The agent's session id the event belongs to. */
  readonly sessionId: string;
  readonly type: McpBudgetEventType;
  readonly data: Record<string, unknown>;
}

/** The notification's method under an extension prefix. */
export const mcpBudgetMethod = (prefix: string) => `${prefix}/notify/session/mcp-budget-event`;

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0 && value.length <= MAX_BUDGET_STRING;
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const MODES = new Set(["enforce", "warn", "off"]);

/** The counts both kinds carry, or null when one is missing or not a whole number ≥ 0. */
function counts(p: Record<string, unknown>): { liveCount: number; reservedCount: number; budget: number; mode: string } | null {
  const { liveCount, reservedCount, budget, mode } = p;
  if (!isCount(liveCount) || !isCount(reservedCount) || !isCount(budget) || typeof mode !== "string" || !MODES.has(mode)) return null;
  return { liveCount, reservedCount, budget, mode };
}

function refusedServers(value: unknown): { name: string; transport: string; reason: string }[] | null {
  if (!Array.isArray(value) || value.length > MAX_REFUSED_SERVERS) return null;
  const out: { name: string; transport: string; reason: string }[] = [];
  for (const entry of value) {
    if (entry === null || typeof entry !== "object") return null;
    const { name, transport, reason } = entry as Record<string, unknown>;
    if (!isText(name) || !isText(transport) || !isText(reason)) return null;
    out.push({ name, transport, reason });
  }
  return out;
}

/** The event `params` stands for, or null when it is malformed. */
export function readMcpBudgetEvent(params: unknown): McpBudgetEvent | null {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return null;
  const p = params as Record<string, unknown>;
  if (p.v !== 1 || !isText(p.sessionId)) return null;
  if (p.scope !== undefined && !isText(p.scope)) return null;
  const common = counts(p);
  if (common === null) return null;
  const scope = p.scope === undefined ? {} : { scope: p.scope };
  if (p.kind === "budget_warning") {
    const ratio = p.thresholdRatio;
    if (typeof ratio !== "number" || !(ratio > 0 && ratio <= 1)) return null;
    return { sessionId: p.sessionId, type: "mcp_budget_warning", data: { ...common, thresholdRatio: ratio, ...scope } };
  }
  if (p.kind === "refused_batch") {
    const servers = refusedServers(p.refusedServers);
    if (servers === null) return null;
    return { sessionId: p.sessionId, type: "mcp_child_refused_batch", data: { refusedServers: servers, ...common, ...scope } };
  }
  return null;
}
