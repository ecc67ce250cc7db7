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
 *
 * Bounds on the HTTP response itself, before anything is parsed (`bounded-fetch.ts`): one event of
 * the stream over MAX_STREAM_EVENT_BYTES (one line too), the whole response over
 * MAX_RESPONSE_BYTES; past either the request is aborted and the round fails `output_too_large` the
 * same way. An error answer's body is read to MAX_ERROR_BODY_BYTES only. The stall timer counts
 * the response's raw bytes as well as its parsed parts: a stream that keeps sending bytes is not
 * idle (it ends at a bound instead).
 */
import { APICallError, type LanguageModelV4, type LanguageModelV4FunctionTool, type LanguageModelV4Prompt } from "@ai-sdk/provider";
import { cutUtf8, MAX_TOOL_INPUT_BYTES, utf8Bytes } from "../acp-bounds.ts";
import { boundedFetch, overflowIn, type FetchBounds } from "../bounded-fetch.ts";
import type { ModelClient } from "./provider.ts";
import { retryDecision } from "./retry-policy.ts";

export const MAX_ROUND_TEXT_BYTES = 1024 * 1024;
export const MAX_ROUND_THOUGHT_BYTES = 1024 * 1024;
/** Room for two calls at the per-call bound (a call over that fails alone, see `acp-bounds.ts`). */
export const MAX_ROUND_TOOL_INPUT_BYTES = 2 * MAX_TOOL_INPUT_BYTES;
export const MAX_ROUND_TOOL_CALLS = 64;
/**
 * A tool's name as the model calls it. The agent's tools have short names (providers allow 64
 * characters); a longer one names no tool, so the round ends as it arrives, before the provider
 * keeps it for the rest of the stream.
 */
export const MAX_TOOL_NAME_BYTES = 256;
/**
 * One event of the response stream. A provider may send a round's every tool call whole in one
 * event: MAX_ROUND_TOOL_INPUT_BYTES of argument text, JSON-escaped once more in the event (at most
 * twice as long: the arguments are JSON text, whose only characters escaped again are `"` and `\`),
 * and room for the event's other fields.
 */
export const MAX_STREAM_EVENT_BYTES = 2 * MAX_ROUND_TOOL_INPUT_BYTES + 1024 * 1024;
/**
 * One whole response. A round's counted output (text, reasoning, arguments: 14 MiB at most) sent
 * one token per event takes about 150 bytes of event per 4 bytes of output, so the round's own
 * bounds end a real reply first; this one ends a stream of events that carry nothing counted.
 */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** The part of an error answer's body read (for its message); the rest is never read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The error body shown in a failed round's message when the provider's message could not be read from it. */
const ERROR_BODY_SHOWN_BYTES = 1024;

const MODEL_FETCH_BOUNDS: FetchBounds = { eventBytes: MAX_STREAM_EVENT_BYTES, responseBytes: MAX_RESPONSE_BYTES, errorBodyBytes: MAX_ERROR_BODY_BYTES };

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
  readonly model: ModelClient;
  readonly modelId: string;
  /** Longest silence of the open stream (no byte, no part); past it the round fails. */
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

/** The reply passed one of the round's bounds (`limit` names it); `text` is what was kept (within MAX_ROUND_TEXT_BYTES). */
export class RoundOverflow extends ModelError {
  constructor(
    modelId: string,
    limit: string,
    readonly text: string,
  ) {
    super(`model ${modelId}: the reply passed the limit of ${limit}; it was stopped there`, "output_too_large");
  }
}

/** Thrown when the turn's signal aborted the round. */
export class RoundAborted extends Error {}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function requestFailure(modelId: string, err: unknown, reason: string): ModelError {
  if (APICallError.isInstance(err)) {
    if (err.statusCode === undefined) return new ModelError(`model ${modelId}: cannot reach ${err.url} (${messageOf(err.cause ?? err)}); ${reason}`);
    const auth = err.statusCode === 401 || err.statusCode === 403;
    // The provider's message, or (a body it could not read it from, maybe cut at MAX_ERROR_BODY_BYTES) the body's start.
    const body = err.data === undefined && err.responseBody?.trim() ? `; the answer's body begins: ${cutUtf8(err.responseBody.trim(), ERROR_BODY_SHOWN_BYTES)}` : "";
    return new ModelError(
      `model ${modelId}: HTTP ${err.statusCode}: ${err.message}${auth ? " (check the API key variable for this provider)" : `; ${reason}`}${body}`,
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

async function openStream(request: RoundRequest, model: LanguageModelV4, abortSignal: AbortSignal) {
  for (let retries = 0; ; retries++) {
    try {
      return (await model.doStream({ prompt: request.prompt, tools: request.tools, maxOutputTokens: request.maxOutputTokens, abortSignal })).stream;
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
  /** When the response last sent bytes (the stall timer's reference along with the last part). */
  let heardAt = performance.now();
  const model = request.model(boundedFetch(MODEL_FETCH_BOUNDS, { onBytes: () => void (heardAt = performance.now()) }));
  const stream = await openStream(request, model, abortSignal);
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
  /** The next part, or StreamStalled after idleTimeoutMs with neither a part nor a byte. */
  const nextPart = () => {
    const askedAt = performance.now();
    return Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => {
        const check = () => {
          const quiet = performance.now() - Math.max(askedAt, heardAt);
          if (quiet < request.idleTimeoutMs) {
            timer = setTimeout(check, request.idleTimeoutMs - quiet);
            return;
          }
          stop.abort();
          reject(new StreamStalled());
        };
        timer = setTimeout(check, request.idleTimeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  };
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
          if (kept !== part.delta) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TEXT_BYTES} bytes of text in one round`, text);
          break;
        }
        case "reasoning-delta": {
          thoughtBytes += utf8Bytes(part.delta);
          if (thoughtBytes > MAX_ROUND_THOUGHT_BYTES) throw new RoundOverflow(request.modelId, `${MAX_ROUND_THOUGHT_BYTES} bytes of reasoning in one round`, text);
          await request.onThought(part.delta);
          break;
        }
        case "tool-input-start":
          if (utf8Bytes(part.toolName) > MAX_TOOL_NAME_BYTES) throw new RoundOverflow(request.modelId, `${MAX_TOOL_NAME_BYTES} bytes in a tool's name`, text);
          break;
        case "tool-input-delta":
          streamedInputs.add(part.id);
          toolInputBytes += utf8Bytes(part.delta);
          if (toolInputBytes > MAX_ROUND_TOOL_INPUT_BYTES) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TOOL_INPUT_BYTES} bytes of tool-call arguments in one round`, text);
          break;
        case "tool-call":
          if (utf8Bytes(part.toolName) > MAX_TOOL_NAME_BYTES) throw new RoundOverflow(request.modelId, `${MAX_TOOL_NAME_BYTES} bytes in a tool's name`, text);
          if (!streamedInputs.has(part.toolCallId)) toolInputBytes += utf8Bytes(part.input);
          if (toolInputBytes > MAX_ROUND_TOOL_INPUT_BYTES) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TOOL_INPUT_BYTES} bytes of tool-call arguments in one round`, text);
          if (toolCalls.length === MAX_ROUND_TOOL_CALLS) throw new RoundOverflow(request.modelId, `${MAX_ROUND_TOOL_CALLS} tool calls in one round`, text);
          toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
          break;
        case "error":
          throw new ModelError(`model ${request.modelId}: the response stream failed: ${messageOf(part.error)}`, "model_stream_interrupted");
        case "finish":
          finish = { usage: { inputTokens: part.usage.inputTokens.total ?? 0, outputTokens: part.usage.outputTokens.total ?? 0 }, reason: part.finishReason.unified };
          break;
      }
    }
  } catch (caught) {
    if (request.signal.aborted) throw new RoundAborted();
    // The response passed a bound of its own (the AI SDK wraps the body's error): the round's overflow, with the text kept.
    const overflow = overflowIn(caught);
    const err = overflow ? new RoundOverflow(request.modelId, overflow.limit, text) : caught;
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
