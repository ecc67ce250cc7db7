/**
 * One model round: a streamed chat request (with bounded retries before the stream starts, see
 * `retry-policy.ts`), its text forwarded as it arrives, its tool calls and usage collected. A stream
 * that reports an error, carries a malformed frame or ends without a finish reason fails the round
 * with `model_stream_interrupted`; it is never taken for a complete answer. So does a stream that
 * stalls: no chunk for `idleTimeoutMs` (the request is aborted).
 *
 * Bounds on one round's reply, besides the output token limit the request carries (which the
 * provider enforces, and a provider may ignore): text over MAX_ROUND_TEXT_BYTES, reasoning over
 * MAX_ROUND_THOUGHT_BYTES, tool-call argument text over MAX_ROUND_TOOL_INPUT_BYTES (all calls
 * together) or more than MAX_ROUND_TOOL_CALLS calls. Past any of them the stream is aborted and the
 * round fails with `output_too_large` (RoundOverflow), carrying the text kept up to the bound.
 */
import { APICallError, type LanguageModelV4, type LanguageModelV4FunctionTool, type LanguageModelV4Prompt } from "@ai-sdk/provider";
import { cutUtf8, MAX_TOOL_INPUT_BYTES, utf8Bytes } from "../acp-bounds.ts";
import { retryDecision } from "./retry-policy.ts";

export const MAX_ROUND_TEXT_BYTES = 1024 * 1024;
export const MAX_ROUND_THOUGHT_BYTES = 1024 * 1024;
/** Room for two calls at the per-call bound (a call over that fails alone, see `acp-bounds.ts`). */
export const MAX_ROUND_TOOL_INPUT_BYTES = 2 * MAX_TOOL_INPUT_BYTES;
export const MAX_ROUND_TOOL_CALLS = 64;

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  /** JSON text as the model wrote it. */
  readonly input: string;
}

export interface RoundUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface RoundResult {
  readonly text: string;
  readonly toolCalls: ToolCallRequest[];
  readonly usage: RoundUsage;
  /** `length` means the model hit its output limit. */
  readonly finish: string;
}

export interface RoundRequest {
  readonly model: LanguageModelV4;
  readonly modelId: string;
  /** Longest wait for the next chunk of the open stream; past it the round fails. */
  readonly idleTimeoutMs: number;
  /** The output token limit sent with the request. */
  readonly maxOutputTokens: number;
  readonly prompt: LanguageModelV4Prompt;
  readonly tools: LanguageModelV4FunctionTool[];
  readonly signal: AbortSignal;
  readonly onText: (delta: string) => Promise<void>;
  readonly onThought: (delta: string) => Promise<void>;
}

/** A model failure that ends the turn; `errorKind` follows the daemon's `turn_error` vocabulary. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly errorKind?: "auth_env_error" | "model_stream_interrupted" | "output_too_large",
  ) {
    super(message);
  }
}

/** The reply passed one of the round's bounds; `text` is what was kept (within MAX_ROUND_TEXT_BYTES). */
export class RoundOverflow extends ModelError {
  constructor(
    modelId: string,
    what: string,
    readonly text: string,
  ) {
    super(`model ${modelId}: the reply passed the limit of ${what} in one round; it was stopped there`, "output_too_large");
  }
}

/** Thrown when the turn's signal aborted the round. */
export class RoundAborted extends Error {}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function requestFailure(modelId: string, err: unknown, reason: string): ModelError {
  if (APICallError.isInstance(err)) {
    if (err.statusCode === undefined) return new ModelError(`model ${modelId}: cannot reach ${err.url} (${messageOf(err.cause ?? err)}); ${reason}`);
    const auth = err.statusCode === 401 || err.statusCode === 403;
    return new ModelError(
      `model ${modelId}: HTTP ${err.statusCode}: ${err.message}${auth ? " (check the API key variable for this provider)" : `; ${reason}`}`,
      auth ? "auth_env_error" : undefined,
    );
  }
  return new ModelError(`model ${modelId}: ${messageOf(err)}`);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RoundAborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RoundAborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Thrown by the stall timer: the stream sent nothing for the idle timeout. */
class StreamStalled extends Error {}

async function openStream(request: RoundRequest, abortSignal: AbortSignal) {
  for (let retries = 0; ; retries++) {
    try {
      return (await request.model.doStream({ prompt: request.prompt, tools: request.tools, maxOutputTokens: request.maxOutputTokens, abortSignal })).stream;
    } catch (err) {
      if (request.signal.aborted) throw new RoundAborted();
      const decision = retryDecision(err, retries);
      if (!decision.retry) throw requestFailure(request.modelId, err, decision.reason);
      await abortableSleep(decision.delayMs, request.signal);
    }
  }
}

export async function streamRound(request: RoundRequest): Promise<RoundResult> {
  // The request's own signal: the turn's, plus the stall timer's or a bound's abort (which ends the HTTP request too).
  const stop = new AbortController();
  const abortSignal = AbortSignal.any([request.signal, stop.signal]);
  const stream = await openStream(request, abortSignal);
  let text = "";
  let textBytes = 0;
  let thoughtBytes = 0;
  let toolInputBytes = 0;
  /** Calls whose argument text was counted from its deltas. */
  const streamedInputs = new Set<string>();
  const toolCalls: ToolCallRequest[] = [];
  let finish: { usage: RoundUsage; reason: string } | null = null;
  const reader = stream.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The next part, or StreamStalled after idleTimeoutMs of silence. */
  const nextPart = () =>
    Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          stop.abort();
          reject(new StreamStalled());
        }, request.idleTimeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  try {
    for (let next = await nextPart(); !next.done; next = await nextPart()) {
      const part = next.value;
      switch (part.type) {
        case "text-delta": {
          const bytes = utf8Bytes(part.delta);
          const kept = textBytes + bytes > MAX_ROUND_TEXT_BYTES ? cutUtf8(part.delta, MAX_ROUND_TEXT_BYTES - textBytes) : part.delta;
          text += kept;
          textBytes += kept === part.delta ? bytes : utf8Bytes(kept);
          if (kept !== "") await request.onText(kept);
          if (kept !== part.delta) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TEXT_BYTES} bytes of text`, text);
          break;
        }
        case "reasoning-delta": {
          thoughtBytes += utf8Bytes(part.delta);
          if (thoughtBytes > MAX_ROUND_THOUGHT_BYTES) throw new RoundOverflow(request.modelId, `${MAX_ROUND_THOUGHT_BYTES} bytes of reasoning`, text);
          await request.onThought(part.delta);
          break;
        }
        case "tool-input-delta":
          streamedInputs.add(part.id);
          toolInputBytes += utf8Bytes(part.delta);
          if (toolInputBytes > MAX_ROUND_TOOL_INPUT_BYTES) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TOOL_INPUT_BYTES} bytes of tool-call arguments`, text);
          break;
        case "tool-call":
          if (!streamedInputs.has(part.toolCallId)) toolInputBytes += utf8Bytes(part.input);
          if (toolInputBytes > MAX_ROUND_TOOL_INPUT_BYTES) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TOOL_INPUT_BYTES} bytes of tool-call arguments`, text);
          if (toolCalls.length === MAX_ROUND_TOOL_CALLS) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TOOL_CALLS} tool calls`, text);
          toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
          break;
        case "error":
          throw new ModelError(`model ${request.modelId}: the response stream failed: ${messageOf(part.error)}`, "model_stream_interrupted");
        case "finish":
          finish = { usage: { inputTokens: part.usage.inputTokens.total ?? 0, outputTokens: part.usage.outputTokens.total ?? 0 }, reason: part.finishReason.unified };
          break;
      }
    }
  } catch (err) {
    if (request.signal.aborted) throw new RoundAborted();
    if (err instanceof RoundOverflow) {
      stop.abort();
      void reader.cancel().catch(() => {});
      throw err;
    }
    if (err instanceof ModelError) throw err;
    if (err instanceof StreamStalled) {
      void reader.cancel().catch(() => {});
      throw new ModelError(`model ${request.modelId}: the response stream stalled: nothing arrived for ${request.idleTimeoutMs} ms (model.streamIdleTimeoutMs)`, "model_stream_interrupted");
    }
    throw new ModelError(`model ${request.modelId}: the response stream broke off: ${messageOf(err)}`, "model_stream_interrupted");
  }
  if (request.signal.aborted) throw new RoundAborted();
  if (finish === null) throw new ModelError(`model ${request.modelId}: the response stream ended without finishing`, "model_stream_interrupted");
  return { text, toolCalls, usage: finish.usage, finish: finish.reason };
}
