/**
 * One model round: a streamed chat request (with bounded retries before the stream starts, see
 * `retry-policy.ts`), its text forwarded as it arrives, its tool calls and usage collected. A stream
 * that reports an error, carries a malformed frame or ends without a finish reason fails the round
 * with `model_stream_interrupted`; it is never taken for a complete answer. So does a stream that
 * stalls: no chunk for `idleTimeoutMs` (the request is aborted).
 *
 * A round's text and tool calls are kept whole (they go into the history): the request's output
 * token limit, which the provider enforces, is their bound.
 */
import { APICallError, type LanguageModelV4, type LanguageModelV4FunctionTool, type LanguageModelV4Prompt } from "@ai-sdk/provider";
import { retryDecision } from "./retry-policy.ts";

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
    readonly errorKind?: "auth_env_error" | "model_stream_interrupted",
  ) {
    super(message);
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
      return (await request.model.doStream({ prompt: request.prompt, tools: request.tools, abortSignal })).stream;
    } catch (err) {
      if (request.signal.aborted) throw new RoundAborted();
      const decision = retryDecision(err, retries);
      if (!decision.retry) throw requestFailure(request.modelId, err, decision.reason);
      await abortableSleep(decision.delayMs, request.signal);
    }
  }
}

export async function streamRound(request: RoundRequest): Promise<RoundResult> {
  // The request's own signal: the turn's, plus the stall timer's abort (which ends the HTTP request too).
  const stall = new AbortController();
  const abortSignal = AbortSignal.any([request.signal, stall.signal]);
  const stream = await openStream(request, abortSignal);
  let text = "";
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
          stall.abort();
          reject(new StreamStalled());
        }, request.idleTimeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  try {
    for (let next = await nextPart(); !next.done; next = await nextPart()) {
      const part = next.value;
      switch (part.type) {
        case "text-delta":
          text += part.delta;
          await request.onText(part.delta);
          break;
        case "reasoning-delta":
          await request.onThought(part.delta);
          break;
        case "tool-call":
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
