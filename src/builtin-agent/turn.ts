/**
 * One prompt turn: model rounds until the model answers without tool calls, each round's tool calls
 * run in order (see `tool-call.ts`) and their results fed back. Text streams out as
 * `agent_message_chunk`s (reasoning as `agent_thought_chunk`s), the model's deltas gathered into
 * fewer chunks (`chunk-coalescer.ts`) and all of a round's sent before its tool calls; the turn's usage goes on a last empty chunk (`_meta.usage`, the reference
 * agent's shape) and on the response. Cancel aborts the model stream and any running tool and ends
 * the turn `cancelled`; a model failure ends it with a JSON-RPC error whose `data` carries
 * `details` and, where one applies, `errorKind`. A reply past a round's bounds (`model-round.ts`)
 * ends it with `errorKind: "output_too_large"`, the text kept up to the bound saved in the history;
 * so does a turn whose own exchange grows past the history's byte bound (`agent-session.ts`).
 *
 * Hooks (`hooks/turn-hooks.ts`): those of the session's start and the prompt's submit run before the
 * prompt is kept; one that blocks ends the turn `end_turn` with its reason as the reply.
 *
 * Tool-call ids: the client sees the agent's own (`tool-call.ts`); the history, and so the model,
 * keeps the model's id when it is at most MAX_MODEL_CALL_ID_BYTES (else, or when empty or repeated
 * in the round, one of the agent's own in both the call and its result). Tool names in the history
 * are cut like titles.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { LanguageModelV4FunctionTool, LanguageModelV4Message } from "@ai-sdk/provider";
import { boundDetails, boundTitle, oversizedInput, toolCallIdFor, utf8Bytes } from "./acp-bounds.ts";
import { MAX_HISTORY_BYTES, type AgentSession } from "./agent-session.ts";
import { ChunkCoalescer } from "./chunk-coalescer.ts";
import { compactIfNeeded } from "./compaction.ts";
import { ModelError, RoundAborted, RoundOverflow, streamRound, type RoundUsage, type ToolCallRequest } from "./model/model-round.ts";
import type { ModelClient } from "./model/provider.ts";
import type { PromptContext } from "./prompt-context.ts";
import { systemPrompt } from "./system-prompt.ts";
import { tagged } from "./rewind.ts";
import { runToolCall, type ToolCallResult } from "./tool-call.ts";
import type { TurnHooks } from "./hooks/turn-hooks.ts";
import { runSubagent, type SubagentHost } from "./subagents/run-subagent.ts";
import type { ToolSet } from "./mcp/mcp-tools.ts";
import { capForModel, type ToolContext } from "./tools/tool.ts";

/** The client's request before an edit tool writes (the daemon keeps the file's content for a rewind). */
export const BEFORE_WRITE_METHOD = "svc/checkpoint/before_write";

/** Model rounds per turn; past it the turn ends with `max_turn_requests`. */
export const MAX_ROUNDS_PER_TURN = 50;
/** Longest model tool-call id kept in the history (see the header). */
export const MAX_MODEL_CALL_ID_BYTES = 256;

export interface TurnDeps {
  readonly client: acp.AgentContext;
  readonly session: AgentSession;
  readonly model: ModelClient;
  readonly modelId: string;
  /** Longest silence between two chunks of the model's stream (config `model.streamIdleTimeoutMs`). */
  readonly streamIdleTimeoutMs: number;
  /** The output token limit of every model request (the model entry's `maxOutputTokens`). */
  readonly maxOutputTokens: number;
  /** The model's context window in tokens (the entry's `contextLimit`): the history is compacted to fit it (`compaction.ts`). */
  readonly contextLimit: number;
  /** The system prompt's instruction files, environment and language, read once per turn. */
  readonly promptContext: () => Promise<PromptContext>;
  readonly tools: Omit<ToolContext, "signal" | "publishPlan" | "beforeWrite">;
  /** The tools offered to the model, read again each round (a tool disabled meanwhile is no longer offered). */
  readonly toolbox: () => ToolSet;
  readonly signal: AbortSignal;
  /** The session's hooks; null runs none. */
  readonly hooks?: Pick<TurnHooks, "opening" | "tool"> | null;
  /** Runs `task` subagents; null or absent: the `task` tool refuses (inside a subagent). */
  readonly subagents?: SubagentHost | null;
  /** The system prompt in place of the agent's own (a subagent's definition). */
  readonly system?: string;
  /** Model rounds of this turn (default MAX_ROUNDS_PER_TURN). */
  readonly maxRounds?: number;
  /** The client's id for this prompt (`_meta["svc/invocation"].promptId`), kept on its user message so a rewind can find it. */
  readonly promptId?: string;
}

/** A turn-ending failure the daemon reports as `turn_error`. */
const turnFailure = (details: string, errorKind?: string) => new acp.RequestError(-32603, "Internal error", { details: boundDetails(details), ...(errorKind ? { errorKind } : {}) });

/** The ids the round's calls carry in the history: the model's own where usable, else the agent's. */
function historyIds(calls: readonly ToolCallRequest[]): string[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    const id = call.id !== "" && utf8Bytes(call.id) <= MAX_MODEL_CALL_ID_BYTES && !seen.has(call.id) ? call.id : toolCallIdFor();
    seen.add(id);
    return id;
  });
}

/** The prompt's blocks as the user message's text parts. */
function userMessage(prompt: acp.ContentBlock[]): LanguageModelV4Message {
  const parts = prompt.flatMap((block): string[] => {
    if (block.type === "text") return [block.text];
    if (block.type === "resource_link") return [`[file: ${block.uri}]`];
    if (block.type === "resource" && "text" in block.resource) return [`[file: ${block.resource.uri}]\n${block.resource.text}`];
    return [];
  });
  return { role: "user", content: parts.map((text) => ({ type: "text", text })) };
}

export async function runTurn(deps: TurnDeps, prompt: acp.ContentBlock[]): Promise<acp.PromptResponse> {
  const { client, session, signal } = deps;
  const sessionId = session.id;
  const usage: RoundUsage = { inputTokens: 0, outputTokens: 0 };
  const usageMeta = () => ({ usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.inputTokens + usage.outputTokens } });
  const end = async (stopReason: acp.StopReason): Promise<acp.PromptResponse> => {
    await client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" }, _meta: usageMeta() } });
    return { stopReason, _meta: usageMeta() };
  };
  const context: ToolContext = {
    ...deps.tools,
    signal,
    publishPlan: (entries) => client.notify("session/update", { sessionId, update: { sessionUpdate: "plan", entries } }),
    beforeWrite: (path) => client.request(BEFORE_WRITE_METHOD, { sessionId, path }).then(
      () => {},
      () => {},
    ),
    ...(deps.subagents ? { runSubagent: (toolCallId, request) => runSubagent(deps, runTurn, deps.subagents!, toolCallId, request) } : {}),
  };

  const chunks = new ChunkCoalescer((sessionUpdate, text) => client.notify("session/update", { sessionId, update: { sessionUpdate, content: { type: "text", text } } }));

  const opening = deps.hooks ? await deps.hooks.opening(session, prompt, signal) : {};
  if (signal.aborted) return await end("cancelled");
  if (opening.blocked !== undefined) {
    await client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: opening.blocked } } });
    return await end("end_turn");
  }
  const message = userMessage(prompt);
  session.remember(tagged(opening.context === undefined ? message : { role: "user", content: [...(message.content as { type: "text"; text: string }[]), { type: "text", text: opening.context }] }, deps.promptId));
  session.stats.prompts++;
  session.lastContext = await deps.promptContext();
  const system = deps.system ?? systemPrompt(session.cwd, session.lastContext);
  const compaction = { client, session, model: deps.model, modelId: deps.modelId, contextLimit: deps.contextLimit, maxOutputTokens: deps.maxOutputTokens, idleTimeoutMs: deps.streamIdleTimeoutMs, signal };
  for (let round = 0; round < (deps.maxRounds ?? MAX_ROUNDS_PER_TURN); round++) {
    const toolbox = deps.toolbox();
    const toolSpecs: LanguageModelV4FunctionTool[] = [...toolbox.enabled.values()].map((t) => ({ type: "function", name: t.name, description: t.description, inputSchema: t.parameters }));
    const fixedBytes = utf8Bytes(system) + utf8Bytes(JSON.stringify(toolSpecs));
    try {
      if (await compactIfNeeded(compaction, fixedBytes)) await chunks.flush();
    } catch (err) {
      if (err instanceof RoundAborted) return await end("cancelled");
      throw err;
    }
    const sent = { bytes: fixedBytes + session.historyBytes, historyLength: session.history.length };
    const started = performance.now();
    let result;
    try {
      result = await streamRound({
        model: deps.model,
        modelId: deps.modelId,
        idleTimeoutMs: deps.streamIdleTimeoutMs,
        maxOutputTokens: deps.maxOutputTokens,
        prompt: [{ role: "system", content: system }, ...session.history],
        tools: toolSpecs,
        signal,
        onText: (delta) => chunks.add("agent_message_chunk", delta),
        onThought: (delta) => chunks.add("agent_thought_chunk", delta),
      });
    } catch (err) {
      // What came before the failure (or the cancel) is sent before the turn ends.
      await chunks.flush();
      if (err instanceof RoundAborted) return await end("cancelled");
      session.stats.modelRequest(deps.modelId, performance.now() - started, null);
      if (err instanceof RoundOverflow && err.text !== "") session.remember({ role: "assistant", content: [{ type: "text", text: err.text }] });
      if (err instanceof ModelError) throw turnFailure(err.message, err.errorKind);
      throw err;
    }
    await chunks.flush();
    session.stats.modelRequest(deps.modelId, performance.now() - started, result.usage);
    session.meter.calibrate(sent.bytes, result.usage.inputTokens);
    session.lastRequest = { system, ...sent, inputTokens: result.usage.inputTokens > 0 ? result.usage.inputTokens : null };
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    const ids = historyIds(result.toolCalls);
    session.remember({
      role: "assistant",
      content: [
        ...(result.text ? [{ type: "text" as const, text: result.text }] : []),
        ...result.toolCalls.map((c, i) => ({ type: "tool-call" as const, toolCallId: ids[i]!, toolName: boundTitle(c.name), input: historyInput(c.input) })),
      ],
    });
    if (result.toolCalls.length === 0) return await end(result.finish === "length" ? "max_tokens" : "end_turn");

    const results: LanguageModelV4Message & { role: "tool" } = { role: "tool", content: [] };
    let cancelled = false;
    for (const [i, call] of result.toolCalls.entries()) {
      const outcome: ToolCallResult = cancelled ? { text: "cancelled", isError: true, cancelled: true } : await runToolCall(client, session, call, context, toolbox, deps.hooks?.tool ?? null);
      cancelled ||= outcome.cancelled || signal.aborted;
      const text = capForModel(outcome.text);
      results.content.push({ type: "tool-result", toolCallId: ids[i]!, toolName: boundTitle(call.name), output: outcome.isError ? { type: "error-text", value: text } : { type: "text", value: text } });
    }
    // Every call gets its result, even on cancel, so the kept history stays a valid conversation.
    session.remember(results);
    if (cancelled) return await end("cancelled");
    if (session.overflowing) throw turnFailure(`this turn's conversation passed the ${MAX_HISTORY_BYTES}-byte limit of the kept history; it was stopped`, "output_too_large");
  }
  return await end("max_turn_requests");
}

/**
 * Tool-call input for the history: parsed when it is JSON, else kept as the raw text; arguments
 * over the bound (the call failed on them) are replaced by a note, so they are not re-sent every round.
 */
function historyInput(input: string): unknown {
  const oversized = oversizedInput(input);
  if (oversized) return { omitted: oversized };
  try {
    return JSON.parse(input === "" ? "{}" : input);
  } catch {
    return input;
  }
}
