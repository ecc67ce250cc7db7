/**
 * A runtime's MCP budget events: the live profile's budget notification is relayed to its session
 * (`mcp-budget-event.ts`) under the daemon's configured budget, which is authoritative: under mode
 * `off` (or no budget) nothing is recorded or relayed, whatever the agent claims, and the event
 * carries the daemon's mode and budget. One for no registered session is dropped before it touches
 * any state; a flood is cut per session (`mcp-budget-relay.ts`). What the child reported is kept for
 * `/daemon/status` (`mcp-budget-state.ts`), and starts over with each child.
 */
import type { Logger } from "../logging/logger.ts";
import type { ExtensionPrefix } from "./agent-profile.ts";
import type { McpBudget } from "./child-env.ts";
import { mcpBudgetMethod, readMcpBudgetEvent } from "./mcp-budget-event.ts";
import { McpBudgetRelayLimit } from "./mcp-budget-relay.ts";
import { McpBudgetTracker, type McpBudgetState } from "./mcp-budget-state.ts";
import type { SessionSink } from "./session-sinks.ts";

export class McpBudgetRouter {
  /** A malformed MCP budget notification is logged once per runtime; later ones are dropped silently. */
  private malformedLogged = false;
  /** What the live child reported of its MCP budget; replaced with each child. */
  private tracker = new McpBudgetTracker();
  /** How many budget events each session is relayed; reset with each child. */
  private readonly relay = new McpBudgetRelayLimit();

  constructor(
    private readonly configured: McpBudget | undefined,
    private readonly logger: Logger,
  ) {}

  /** What the current child reported (null: nothing). */
  get state(): McpBudgetState | null {
    return this.tracker.state;
  }

  /** A new child: nothing reported, nothing relayed yet. */
  reset(): void {
    this.tracker = new McpBudgetTracker();
    this.relay.clear();
  }

  /** `sessionId` unregistered. */
  forget(sessionId: string): void {
    this.relay.forget(sessionId);
  }

  /** Whether `method` is the budget notification of the profile with extension prefix `prefix`. */
  handles(method: string, prefix: ExtensionPrefix | null | undefined): boolean {
    return !!prefix && method === mcpBudgetMethod(prefix);
  }

  /** A budget notification (`handles` said so), for the session `sinkOf` finds. */
  notify(method: string, params: unknown, sinkOf: (sessionId: string) => SessionSink | undefined): void {
    const configured = this.configured;
    if (!configured || configured.budgetMode === "off") return;
    const event = readMcpBudgetEvent(params);
    if (event === null) {
      if (!this.malformedLogged) this.logger.warn("malformed MCP budget notification dropped (later ones are dropped silently)", { method });
      this.malformedLogged = true;
      return;
    }
    const sink = sinkOf(event.sessionId);
    if (!sink?.onAgentEvent) return;
    const data = { ...event.data, mode: configured.budgetMode, ...(configured.clientBudget === null ? {} : { budget: configured.clientBudget }) };
    this.tracker.record(event.type, data);
    if (this.relay.admit(event.sessionId, event.type)) sink.onAgentEvent(event.type, data);
  }
}
