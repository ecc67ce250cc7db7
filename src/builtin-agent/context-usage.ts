/**
 * `svc/status/session/context_usage`: the reference's `context_usage` shape, from what the session
 * knows. `totalTokens` is the model's own count of the last request plus its reply while the
 * history is as that request left it (`isEstimated: false`); otherwise (nothing sent yet, a turn
 * in progress, a compaction since) the calibrated estimate of the next request
 * (`context-window.ts`). The split among system prompt, instruction files, tool specs and messages
 * is always estimated, scaled to add up to the total. `thresholds` and `currentTier` are the ones
 * compaction works by; `compactions` counts the session's compactions so far.
 */
import { utf8Bytes } from "./acp-bounds.ts";
import type { AgentSession } from "./agent-session.ts";
import { thresholds } from "./context-window.ts";
import { systemPrompt } from "./system-prompt.ts";

export interface OfferedTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  readonly builtin: boolean;
}

const tier = (tokens: number, t: ReturnType<typeof thresholds>) => (tokens >= t.hard ? "hard" : tokens >= t.auto ? "auto" : tokens >= t.warn ? "warn" : "safe");

export function contextUsage(session: AgentSession, model: { contextLimit: number; maxOutputTokens: number } | undefined, tools: readonly OfferedTool[], detail: boolean) {
  const window = model?.contextLimit ?? 0;
  const limits = thresholds(window, model?.maxOutputTokens ?? 0);
  const meter = session.meter;
  const context = session.lastContext;
  const system = session.lastRequest?.system ?? systemPrompt(session.cwd);
  const toolTokens = tools.map((t) => ({ name: t.name, builtin: t.builtin, tokens: meter.estimate(utf8Bytes(JSON.stringify({ type: "function", name: t.name, description: t.description, inputSchema: t.parameters }))) }));
  const memoryFiles = (context?.memory ?? []).map((f) => ({ path: f.path, scope: f.scope, tokens: meter.estimate(utf8Bytes(f.text)) }));
  const memory = memoryFiles.reduce((sum, f) => sum + f.tokens, 0);
  const skillList = (context?.skills ?? []).map((k) => ({ name: k.name, tokens: meter.estimate(utf8Bytes(`- ${k.name}: ${k.description}`)) }));
  const skills = skillList.reduce((sum, k) => sum + k.tokens, 0);
  const builtinTools = toolTokens.filter((t) => t.builtin).reduce((sum, t) => sum + t.tokens, 0);
  const mcpTools = toolTokens.filter((t) => !t.builtin).reduce((sum, t) => sum + t.tokens, 0);
  const systemOnly = Math.max(0, meter.estimate(utf8Bytes(system)) - memory - skills);
  const messages = meter.estimate(session.historyBytes);
  const estimated = systemOnly + memory + skills + builtinTools + mcpTools + messages;
  const last = session.lastRequest;
  const lastUsage = session.stats.lastUsage;
  const counted = last !== null && last.inputTokens !== null && lastUsage !== null && session.turn === null && session.history.length === last.historyLength + 1;
  const total = counted ? last.inputTokens! + lastUsage.outputTokens : estimated;
  const scale = estimated > 0 ? total / estimated : 1;
  const scaled = (n: number) => Math.round(n * scale);
  const usage = {
    modelName: session.modelId ?? "",
    totalTokens: total,
    contextWindowSize: window,
    breakdown: {
      systemPrompt: scaled(systemOnly),
      builtinTools: scaled(builtinTools),
      mcpTools: scaled(mcpTools),
      memoryFiles: scaled(memory),
      skills: scaled(skills),
      startupContext: 0,
      messages: Math.max(0, total - scaled(systemOnly) - scaled(builtinTools) - scaled(mcpTools) - scaled(memory) - scaled(skills)),
      unattributed: 0,
      cachedTokens: 0,
      freeSpace: Math.max(0, window - total - limits.reserve),
      autocompactBuffer: limits.reserve,
      thresholds: { warn: limits.warn, auto: limits.auto, hard: limits.hard, effectiveWindow: limits.effective },
      currentTier: tier(total, limits),
    },
    builtinTools: detail ? toolTokens.filter((t) => t.builtin).map(({ name, tokens }) => ({ name, tokens: scaled(tokens) })) : [],
    mcpTools: detail ? toolTokens.filter((t) => !t.builtin).map(({ name, tokens }) => ({ name, tokens: scaled(tokens) })) : [],
    memoryFiles: detail ? memoryFiles.map((f) => ({ ...f, tokens: scaled(f.tokens) })) : [],
    skills: detail ? skillList.map((k) => ({ ...k, tokens: scaled(k.tokens) })) : [],
    isEstimated: !counted,
    showDetails: detail,
    compactions: session.compactions,
  };
  const percent = window > 0 ? ((100 * total) / window).toFixed(1) : "0.0";
  const formattedText = `Context: ${counted ? "" : "~"}${total} of ${window} tokens (${percent}%) on ${usage.modelName || "no model"}; compaction at ${limits.auto}${session.compactions > 0 ? `, compacted ${session.compactions} time(s)` : ""}`;
  return { usage, formattedText };
}
