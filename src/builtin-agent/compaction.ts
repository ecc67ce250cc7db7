/**
 * Keeps a session's history inside its model's context window (`context-window.ts`): before a
 * model round whose request is estimated past the window's `auto` threshold, the oldest whole
 * exchanges are summarised by the model and replaced by that summary, put at the head of the
 * first kept user message; the recent exchanges worth at most KEEP_RECENT of the window (always at
 * least the running one) stay whole. Nothing is compacted when there is no older exchange.
 *
 * The summary request sends the older messages as a plain transcript (each part cut to
 * MAX_PART_BYTES, the whole to what fits half the window, newest kept) and asks for at most
 * SUMMARY_MAX_TOKENS. When it fails the older messages are dropped all the same, with a note
 * saying so: the session goes on rather than failing on context length. A cancel during it ends
 * the turn as cancelled (the history unchanged).
 *
 * The client is told as the reference agent tells it: an `agent_message_chunk` "IMPORTANT: This
 * conversation approached the input token limit for <model>. A compressed context will be sent for
 * future messages (compressed from: ~N to ~M tokens).", with `_meta.compression` giving the counts.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { cutUtf8, utf8Bytes } from "./acp-bounds.ts";
import type { AgentSession } from "./agent-session.ts";
import { KEEP_RECENT, thresholds } from "./context-window.ts";
import { ModelError, RoundAborted, streamRound } from "./model/model-round.ts";
import type { ModelClient } from "./model/provider.ts";

export const MAX_PART_BYTES = 4096;
export const SUMMARY_MAX_TOKENS = 2048;

const SUMMARY_SYSTEM = [
  "You compress the earlier part of a coding session between a user and an AI coding agent, so the agent can continue without it.",
  "Write a concise summary: the user's goals and requests, decisions taken, files read or changed (with paths), commands run and their outcome, errors met, and what remains to do.",
  "Keep exact names, paths and values. Do not add anything that is not in the transcript. Answer with the summary only.",
].join("\n");

export interface CompactionDeps {
  readonly client: acp.AgentContext;
  readonly session: AgentSession;
  readonly model: ModelClient;
  readonly modelId: string;
  readonly contextLimit: number;
  readonly maxOutputTokens: number;
  readonly idleTimeoutMs: number;
  readonly signal: AbortSignal;
}

/** One history message as transcript lines, each part cut to MAX_PART_BYTES. */
function render(message: LanguageModelV4Message): string {
  const cut = (text: string) => (utf8Bytes(text) > MAX_PART_BYTES ? `${cutUtf8(text, MAX_PART_BYTES)}…` : text);
  if (message.role === "system") return `System: ${cut(message.content)}`;
  const parts = message.content.map((part) => {
    switch (part.type) {
      case "text":
      case "reasoning":
        return cut(part.text);
      case "tool-call":
        return `[called ${part.toolName} ${cut(JSON.stringify(part.input))}]`;
      case "tool-result":
        return `[${part.toolName} result: ${cut(JSON.stringify(part.output))}]`;
      default:
        return `[${part.type}]`;
    }
  });
  return `${message.role === "user" ? "User" : message.role === "assistant" ? "Agent" : "Tools"}: ${parts.join("\n")}`;
}

/** Where the kept history starts: a user message, the newest exchanges within `keepBytes` (at least the last exchange); 0 when nothing older can go. */
export function splitPoint(history: readonly LanguageModelV4Message[], sizes: readonly number[], keepBytes: number): number {
  let kept = 0;
  let split = history.length;
  for (let i = history.length - 1; i >= 0; i--) {
    kept += sizes[i]!;
    if (history[i]!.role !== "user") continue;
    if (split !== history.length && kept > keepBytes) break;
    split = i;
  }
  return split === history.length ? 0 : split;
}

/** The model's summary of `older`, or null when the request failed (not cancelled). */
async function summarise(deps: CompactionDeps, older: readonly LanguageModelV4Message[], inputBytes: number): Promise<string | null> {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = older.length - 1; i >= 0; i--) {
    const line = render(older[i]!);
    bytes += utf8Bytes(line) + 2;
    if (bytes > inputBytes && lines.length > 0) break;
    lines.unshift(line);
  }
  const started = performance.now();
  try {
    const result = await streamRound({
      model: deps.model,
      modelId: deps.modelId,
      idleTimeoutMs: deps.idleTimeoutMs,
      maxOutputTokens: Math.min(SUMMARY_MAX_TOKENS, deps.maxOutputTokens),
      prompt: [
        { role: "system", content: SUMMARY_SYSTEM },
        { role: "user", content: [{ type: "text", text: `The conversation so far:\n\n${lines.join("\n\n")}\n\nSummarise it.` }] },
      ],
      tools: [],
      signal: deps.signal,
      onText: async () => {},
      onThought: async () => {},
    });
    deps.session.stats.modelRequest(deps.modelId, performance.now() - started, result.usage);
    return result.text.trim() === "" ? null : result.text.trim();
  } catch (err) {
    if (err instanceof RoundAborted) throw err;
    if (err instanceof ModelError) {
      deps.session.stats.modelRequest(deps.modelId, performance.now() - started, null);
      return null;
    }
    throw err;
  }
}

/** Compacts the history when the next request (`fixedBytes`: its system prompt and tool specs, plus the history) is past the threshold; true when it did. */
export async function compactIfNeeded(deps: CompactionDeps, fixedBytes: number): Promise<boolean> {
  const { session } = deps;
  const limits = thresholds(deps.contextLimit, deps.maxOutputTokens);
  const meter = session.meter;
  const before = meter.estimate(fixedBytes + session.historyBytes);
  if (before <= limits.auto) return false;
  const keepBytes = Math.max(0, Math.floor(limits.effective * KEEP_RECENT * meter.bytesPerToken) - fixedBytes);
  const split = splitPoint(session.history, session.messageSizes, keepBytes);
  if (split === 0) return false;
  const older = session.history.slice(0, split);
  const summary = await summarise(deps, older, Math.floor((limits.effective / 2) * meter.bytesPerToken));
  const note = summary
    ? `[Summary of the earlier conversation (${older.length} messages), written when the context window filled up:]\n${summary}\n[End of summary; the conversation continues below.]`
    : `[${older.length} earlier messages were dropped to stay within the context window; their summary could not be made.]`;
  session.compact(split, note);
  const after = meter.estimate(fixedBytes + session.historyBytes);
  session.compactions++;
  const text = `IMPORTANT: This conversation approached the input token limit for ${deps.modelId}. A compressed context will be sent for future messages (compressed from: ~${before} to ~${after} tokens).\n\n`;
  await deps.client.notify("session/update", {
    sessionId: session.id,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, _meta: { compression: { originalTokenCount: before, newTokenCount: after, isEstimated: true, summarizedMessages: older.length, summarized: summary !== null } } },
  });
  return true;
}
