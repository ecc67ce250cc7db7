/**
 * `svc/control/workspace/agents/generate {description, cwd?}` (Qwen Code's
 * `qwen/control/workspace/agents/generate`): one model request on the default model drafts a
 * subagent definition `{name, description, systemPrompt}` from a description. Nothing is written;
 * the daemon's `POST /workspace/agents/generate` passes the draft on. Bounds: the description at
 * most MAX_DESCRIPTION_BYTES (else `-32602`), at most GENERATE_OUTPUT_TOKENS asked for,
 * GENERATE_TIMEOUT_MS in all, cancelled with the request. An answer that is not such a JSON object
 * (or whose name breaks the agent-type rule) is `-32603` with `errorKind: "invalid_generation"`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentConfig } from "../../config/agent-config.ts";
import { validAgentType } from "../../workspace/agents/index.ts";
import { utf8Bytes } from "../acp-bounds.ts";
import { ModelError, streamRound } from "../model/model-round.ts";
import type { ModelClient } from "../model/provider.ts";

export const MAX_DESCRIPTION_BYTES = 4096;
export const GENERATE_OUTPUT_TOKENS = 4096;
export const GENERATE_TIMEOUT_MS = 300_000;
/** Longest drafted system prompt kept. */
const MAX_DRAFT_CHARS = 32 * 1024;

export const GENERATE_SYSTEM = `You design subagents: focused assistants a coding agent hands self-contained tasks to.
From the user's request, answer with ONLY a JSON object, no prose and no code fence, with exactly these string fields:
- "name": a short identifier of 2 to 4 lowercase words joined by hyphens (e.g. "code-reviewer"), letters, digits and hyphens only;
- "description": one or two sentences starting "Use this agent when" that say when it should be used;
- "systemPrompt": the agent's complete instructions in the second person ("You are ..."): its role, how it works step by step, what it must not do, and the shape of its final report.`;

export interface AgentGenerateDeps {
  readonly config: AgentConfig;
  readonly workspace: string;
  readonly modelFor: (modelId: string) => Promise<ModelClient>;
}

const invalid = (details: string) => new acp.RequestError(-32603, "Internal error", { details, errorKind: "invalid_generation" });

/** The draft in the model's answer: a JSON object, possibly inside a code fence. */
export function parseDraft(text: string): { name: string; description: string; systemPrompt: string } {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) throw invalid("the model's answer holds no JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw invalid("the model's answer is not valid JSON");
  }
  const o = (value ?? {}) as Record<string, unknown>;
  const field = (key: string, max: number) => {
    const v = o[key];
    if (typeof v !== "string" || v.trim() === "") throw invalid(`the model's draft lacks "${key}"`);
    return v.trim().slice(0, max);
  };
  const name = field("name", 64);
  if (!validAgentType(name)) throw invalid("the model's draft has a name that is not 2 to 64 letters, digits, _ or -");
  return { name, description: field("description", 4096), systemPrompt: field("systemPrompt", MAX_DRAFT_CHARS) };
}

const params: acp.ParamsParser<{ description: string }> = (raw) => {
  const p = (raw ?? {}) as Record<string, unknown>;
  if (typeof p.description !== "string" || p.description.trim() === "") throw acp.RequestError.invalidParams({ field: "description" }, "description must be a non-empty string");
  if (utf8Bytes(p.description) > MAX_DESCRIPTION_BYTES) throw acp.RequestError.invalidParams({ field: "description" }, `description must be at most ${MAX_DESCRIPTION_BYTES} bytes`);
  return { description: p.description.trim() };
};

export function registerAgentGenerateMethod(app: acp.AgentApp, deps: AgentGenerateDeps): void {
  app.onRequest("svc/control/workspace/agents/generate", params, async ({ params: { description }, signal }) => {
    const entry = deps.config.models.find((m) => m.id === deps.config.defaultModelId);
    if (!entry) throw new acp.RequestError(-32603, "Internal error", { details: deps.config.missingModelHint, errorKind: "auth_env_error" });
    let text: string;
    try {
      const result = await streamRound({
        model: await deps.modelFor(entry.id),
        modelId: entry.id,
        idleTimeoutMs: deps.config.streamIdleTimeoutMs,
        maxOutputTokens: Math.min(GENERATE_OUTPUT_TOKENS, entry.maxOutputTokens),
        prompt: [{ role: "system", content: GENERATE_SYSTEM }, { role: "user", content: [{ type: "text", text: `Create an agent configuration based on this request: "${description}"` }] }],
        tools: [],
        signal: AbortSignal.any([AbortSignal.timeout(GENERATE_TIMEOUT_MS), signal]),
        onText: async () => {},
        onThought: async () => {},
      });
      text = result.text;
    } catch (err) {
      if (err instanceof ModelError) throw new acp.RequestError(-32603, "Internal error", { details: err.message, errorKind: err.errorKind ?? "model_error" });
      throw new acp.RequestError(-32603, "Internal error", { details: err instanceof Error ? err.message : String(err), errorKind: "generation_failed" });
    }
    return parseDraft(text);
  });
}
