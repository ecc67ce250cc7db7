/**
 * How many of an agent's MCP budget events are relayed to a session's stream. The agent is
 * expected to warn on an edge (an upward 75 % crossing, re-armed below 37.5 %) and to report one
 * refused batch per discovery pass, but a faulty or hostile agent can send them in a flood that
 * would evict everything else from the session's replay ring. So each session may have at most
 * RELAY_BURST events of each type relayed per RELAY_WINDOW_MS; the rest of the window's events
 * are dropped (the budget state `/daemon/status` reads still folds them in, it is fixed-size).
 */

/** Events of one type relayed per session and window; more in the same window are dropped. */
export const RELAY_BURST = 8;
/** The window RELAY_BURST counts over. */
export const RELAY_WINDOW_MS = 60_000;

interface Window {
  start: number;
  count: number;
}

export class McpBudgetRelayLimit {
  /** One window per session and event type; an entry goes when its session unregisters (`forget`). */
  private readonly windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether an event of `type` for `sessionId` may be relayed now (counts it when so). */
  admit(sessionId: string, type: string): boolean {
    const key = `${type}\u0000${sessionId}`;
    const now = this.now();
    const window = this.windows.get(key);
    if (window === undefined || now - window.start >= RELAY_WINDOW_MS) {
      this.windows.set(key, { start: now, count: 1 });
      return true;
    }
    if (window.count >= RELAY_BURST) return false;
    window.count++;
    return true;
  }

  /** Drops `sessionId`'s windows (it unregistered). */
  forget(sessionId: string): void {
    for (const key of this.windows.keys()) if (key.endsWith(`\u0000${sessionId}`)) this.windows.delete(key);
  }

  clear(): void {
    this.windows.clear();
  }
}
