/**
 * A session's counters for `svc/status/session/stats` and `.../context_usage`, in the reference
 * agent's shapes: prompts, per model requests/errors/latency/tokens, per tool calls/outcomes/
 * durations/approval decisions, and the last model round's usage (what the context held then).
 * In memory only: a session loaded after a restart starts counting again.
 *
 * Bounds: models are keyed by configured model ids and tools by the names in the toolbox (an
 * unknown tool name from the model is never counted), so both maps are bounded by configuration.
 */

interface ModelCounters {
  api: { totalRequests: number; totalErrors: number; totalLatencyMs: number };
  tokens: { prompt: number; candidates: number; total: number };
}

/** How a tool call got to run (or not): asked and approved, declined, or run without asking. */
export type ToolDecision = "accept" | "reject" | "auto_accept";

interface ToolCounters {
  count: number;
  success: number;
  fail: number;
  durationMs: number;
  decisions: { accept: number; reject: number; modify: number; auto_accept: number };
}

export interface LastUsage {
  readonly modelId: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export class SessionStats {
  readonly startedAt = Date.now();
  prompts = 0;
  lastUsage: LastUsage | null = null;
  private readonly models = new Map<string, ModelCounters>();
  private readonly tools = new Map<string, ToolCounters>();

  /**
   * One model request: its usage when it finished, null when it failed. `ofConversation` false: a
   * request outside the conversation (a generation: recap, title, side question), counted but not
   * taken as the conversation's last usage (`context-usage.ts` measures the context with that).
   */
  modelRequest(modelId: string, latencyMs: number, usage: { inputTokens: number; outputTokens: number } | null, ofConversation = true): void {
    let m = this.models.get(modelId);
    if (!m) this.models.set(modelId, (m = { api: { totalRequests: 0, totalErrors: 0, totalLatencyMs: 0 }, tokens: { prompt: 0, candidates: 0, total: 0 } }));
    m.api.totalRequests++;
    m.api.totalLatencyMs += Math.round(latencyMs);
    if (usage === null) {
      m.api.totalErrors++;
      return;
    }
    m.tokens.prompt += usage.inputTokens;
    m.tokens.candidates += usage.outputTokens;
    m.tokens.total += usage.inputTokens + usage.outputTokens;
    if (ofConversation) this.lastUsage = { modelId, ...usage };
  }

  /** One call of a known tool: how it was decided and whether it succeeded. */
  toolCall(name: string, decision: ToolDecision, ok: boolean, durationMs: number): void {
    let t = this.tools.get(name);
    if (!t) this.tools.set(name, (t = { count: 0, success: 0, fail: 0, durationMs: 0, decisions: { accept: 0, reject: 0, modify: 0, auto_accept: 0 } }));
    t.count++;
    if (ok) t.success++;
    else t.fail++;
    t.durationMs += Math.round(durationMs);
    t.decisions[decision]++;
  }

  /** The `stats` envelope's counters (without `v`, `sessionId`, `workspaceCwd`). */
  report(now = Date.now()) {
    const byName = Object.fromEntries(this.tools);
    const tools = [...this.tools.values()];
    return {
      sessionStartTimeMs: this.startedAt,
      durationMs: now - this.startedAt,
      promptCount: this.prompts,
      models: Object.fromEntries(this.models),
      tools: {
        totalCalls: tools.reduce((n, t) => n + t.count, 0),
        totalSuccess: tools.reduce((n, t) => n + t.success, 0),
        totalFail: tools.reduce((n, t) => n + t.fail, 0),
        totalDurationMs: tools.reduce((n, t) => n + t.durationMs, 0),
        byName,
      },
    };
  }
}
