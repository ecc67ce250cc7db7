/**
 * The MCP client budget's slots and events, in the reference agent's terms (qwen 0.24.4's
 * workspace budget): a server holds a slot from the moment it is reserved (before it connects)
 * until it fails or is closed. `enforce` refuses a reservation when `limit` slots are held; `warn`
 * grants it past the limit; `off` (or no limit) only counts.
 *
 * Events (sent to the sessions as `svc/notify/session/mcp-budget-event`):
 * - `budget_warning` when the held slots cross 75 % of the budget upwards; it fires once, and
 *   re-arms only when they drop below 37.5 % (hysteresis, so a server flapping at the line does
 *   not repeat it). Never under `off`.
 * - `refused_batch` at the end of a discovery pass that refused servers, listing them; `enforce`
 *   only, since nothing else refuses (a restart the budget refuses is answered, not announced).
 * `liveCount` and `reservedCount` in both are the held slots, as the reference's workspace budget
 * reports them.
 */
import type { McpBudget } from "../../config/agent-config.ts";

export const WARN_RATIO = 0.75;
export const REARM_RATIO = 0.375;

export interface RefusedServer {
  readonly name: string;
  readonly transport: string;
}

export type McpBudgetEvent =
  | { readonly kind: "budget_warning"; readonly liveCount: number; readonly reservedCount: number; readonly budget: number; readonly thresholdRatio: number; readonly mode: "warn" | "enforce" }
  | {
      readonly kind: "refused_batch";
      readonly refusedServers: ReadonlyArray<RefusedServer & { readonly reason: "budget_exhausted" }>;
      readonly budget: number;
      readonly liveCount: number;
      readonly reservedCount: number;
      readonly mode: "enforce";
    };

/** A reservation's outcome: within the budget, past it (warn mode), or refused (enforce mode). */
export type Reservation = "granted" | "over" | "refused";

export class McpBudgetSlots {
  private readonly held = new Set<string>();
  private warnArmed = true;

  constructor(
    private readonly budget: McpBudget,
    private readonly emit: (event: McpBudgetEvent) => void,
  ) {}

  get reserved(): number {
    return this.held.size;
  }

  reserve(name: string): Reservation {
    const { limit, mode } = this.budget;
    const full = mode !== "off" && limit !== null && this.held.size >= limit && !this.held.has(name);
    if (full && mode === "enforce") return "refused";
    this.held.add(name);
    this.evaluate();
    return full ? "over" : "granted";
  }

  release(name: string): void {
    if (this.held.delete(name)) this.evaluate();
  }

  /** Announces the servers a pass refused (nothing when there are none). */
  refusedBatch(servers: readonly RefusedServer[]): void {
    const { limit } = this.budget;
    if (servers.length === 0 || limit === null) return;
    this.emit({
      kind: "refused_batch",
      refusedServers: servers.map((s) => ({ name: s.name, transport: s.transport, reason: "budget_exhausted" as const })),
      budget: limit,
      liveCount: this.held.size,
      reservedCount: this.held.size,
      mode: "enforce",
    });
  }

  private evaluate(): void {
    const { limit, mode } = this.budget;
    if (mode === "off" || limit === null) return;
    const ratio = limit === 0 ? (this.held.size > 0 ? Infinity : 0) : this.held.size / limit;
    if (this.warnArmed && ratio >= WARN_RATIO) {
      this.warnArmed = false;
      this.emit({ kind: "budget_warning", liveCount: this.held.size, reservedCount: this.held.size, budget: limit, thresholdRatio: WARN_RATIO, mode });
    } else if (!this.warnArmed && ratio < REARM_RATIO) this.warnArmed = true;
  }
}
