/**
 * `svc/control/session/generate {sessionId, prompt, system?, maxOutputTokens?}`: one stateless
 * model request on the session's model, outside its conversation (nothing is added to its history
 * and no update is sent), with no tools. The daemon's recap, titles and `POST /session/:id/generate`
 * go through it (sessions/session-generation.ts); the daemon builds the prompt (its own journal
 * digest for a recap or a title), so the answer never depends on the agent's memory.
 *
 * Bounds: the prompt and the system text at most MAX_GENERATION_INPUT_BYTES together (else
 * `-32602`), at most MAX_GENERATION_OUTPUT_TOKENS asked for, the answer's text cut to
 * MAX_GENERATION_TEXT_BYTES ending in `…`, GENERATION_TIMEOUT_MS in all; the model request ends
 * when the daemon cancels the request (`$/cancel_request`: it stopped waiting). Answer: `{text, model, inputTokens,
 * outputTokens}`. A session without a model, or a model failure, is `-32603` with `errorKind`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentConfig } from "../config/agent-config.ts";
import { cutUtf8, utf8Bytes } from "./acp-bounds.ts";
import type { AgentSession } from "./agent-session.ts";
import { ModelError, RoundOverflow, streamRound } from "./model/model-round.ts";
import type { ModelClient } from "./model/provider.ts";

export const MAX_GENERATION_INPUT_BYTES = 96 * 1024;
export const MAX_GENERATION_OUTPUT_TOKENS = 2048;
export const MAX_GENERATION_TEXT_BYTES = 16 * 1024;
export const GENERATION_TIMEOUT_MS = 120_000;

export interface GenerationDeps {
  readonly config: AgentConfig;
  readonly session: (sessionId: string) => AgentSession;
  readonly modelFor: (modelId: string) => Promise<ModelClient>;
}

interface GenerateParams {
  sessionId: string;
  prompt: string;
  system?: string;
  maxOutputTokens?: number;
}

/** `text` as answered: at most MAX_GENERATION_TEXT_BYTES, a longer one cut ending in `…` (3 bytes). */
const bounded = (text: string) => (utf8Bytes(text) > MAX_GENERATION_TEXT_BYTES ? `${cutUtf8(text, MAX_GENERATION_TEXT_BYTES - 3)}…` : text);

const generateParams: acp.ParamsParser<GenerateParams> = (params) => {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.sessionId !== "string" || p.sessionId === "") throw acp.RequestError.invalidParams({ field: "sessionId" }, "Invalid or missing sessionId");
  if (typeof p.prompt !== "string" || p.prompt.trim() === "") throw acp.RequestError.invalidParams({ field: "prompt" }, "prompt must be a non-empty string");
  if (p.system !== undefined && typeof p.system !== "string") throw acp.RequestError.invalidParams({ field: "system" }, "system must be a string");
  if (utf8Bytes(p.prompt) + utf8Bytes((p.system as string | undefined) ?? "") > MAX_GENERATION_INPUT_BYTES)
    throw acp.RequestError.invalidParams({ field: "prompt" }, `prompt and system must be at most ${MAX_GENERATION_INPUT_BYTES} bytes together`);
  if (p.maxOutputTokens !== undefined && !(Number.isSafeInteger(p.maxOutputTokens) && (p.maxOutputTokens as number) >= 1))
    throw acp.RequestError.invalidParams({ field: "maxOutputTokens" }, "maxOutputTokens must be a positive whole number");
  return { sessionId: p.sessionId, prompt: p.prompt, ...(typeof p.system === "string" ? { system: p.system } : {}), ...(typeof p.maxOutputTokens === "number" ? { maxOutputTokens: p.maxOutputTokens } : {}) };
};

export function registerGenerationMethods(app: acp.AgentApp, deps: GenerationDeps): void {
  app.onRequest("svc/control/session/generate", generateParams, async ({ params, signal }) => {
    const session = deps.session(params.sessionId);
    const entry = deps.config.models.find((m) => m.id === session.modelId);
    if (!entry) throw new acp.RequestError(-32603, "Internal error", { details: deps.config.missingModelHint, errorKind: "auth_env_error" });
    const started = performance.now();
    try {
      const result = await streamRound({
        model: await deps.modelFor(entry.id),
        modelId: entry.id,
        idleTimeoutMs: deps.config.streamIdleTimeoutMs,
        maxOutputTokens: Math.min(params.maxOutputTokens ?? MAX_GENERATION_OUTPUT_TOKENS, MAX_GENERATION_OUTPUT_TOKENS, entry.maxOutputTokens),
        prompt: [...(params.system ? [{ role: "system" as const, content: params.system }] : []), { role: "user", content: [{ type: "text", text: params.prompt }] }],
        tools: [],
        signal: AbortSignal.any([AbortSignal.timeout(GENERATION_TIMEOUT_MS), signal]),
        onText: async () => {},
        onThought: async () => {},
      });
      session.stats.modelRequest(entry.id, performance.now() - started, result.usage, false);
      return { text: bounded(result.text), model: entry.id, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
    } catch (err) {
      if (err instanceof RoundOverflow) return { text: bounded(err.text), model: entry.id, inputTokens: 0, outputTokens: 0 };
      session.stats.modelRequest(entry.id, performance.now() - started, null, false);
      if (err instanceof ModelError) throw new acp.RequestError(-32603, "Internal error", { details: err.message, errorKind: err.errorKind ?? "model_error" });
      throw new acp.RequestError(-32603, "Internal error", { details: err instanceof Error ? err.message : String(err), errorKind: "generation_failed" });
    }
  });
}
