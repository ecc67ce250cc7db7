/**
 * Delivers MCP budget events to the client as `svc/notify/session/mcp-budget-event`
 * `{v: 1, sessionId, kind, ...payload}`, the reference agent's notification under our prefix, once
 * per live session (the MCP servers serve the whole agent process, so every session sees them).
 *
 * An event that happens while no session is open (discovery started by
 * `svc/control/workspace/mcp/initialize` before the first `session/new`) is held, the latest of each
 * kind only, and delivered to the next session opened.
 */
import type { McpBudgetEvent } from "./mcp/mcp-budget.ts";

export const MCP_BUDGET_NOTIFICATION = "svc/notify/session/mcp-budget-event";

/** What sends notifications to the client: the SDK's `AgentContext`, or the agent's front before the SDK is loaded (`acp-front.ts`). */
export interface NotifyTarget {
  notify(method: string, params?: unknown): Promise<void>;
}

export class BudgetNotifier {
  /** The client connection, learnt from the first request that carries it (there is one per agent process). */
  private client: NotifyTarget | null = null;
  private readonly held = new Map<McpBudgetEvent["kind"], McpBudgetEvent>();

  constructor(private readonly sessionIds: () => readonly string[]) {}

  attach(client: NotifyTarget): void {
    this.client = client;
  }

  publish(event: McpBudgetEvent): void {
    const ids = this.sessionIds();
    if (this.client === null || ids.length === 0) {
      this.held.set(event.kind, event);
      return;
    }
    for (const id of ids) this.send(this.client, id, event);
  }

  /** A session was just announced to the client: it gets what was held. */
  sessionOpened(client: NotifyTarget, sessionId: string): void {
    this.client = client;
    for (const event of this.held.values()) this.send(client, sessionId, event);
    this.held.clear();
  }

  private send(client: NotifyTarget, sessionId: string, event: McpBudgetEvent): void {
    void client.notify(MCP_BUDGET_NOTIFICATION, { v: 1, sessionId, ...event }).catch(() => {});
  }
}
