/**
 * The language model of a configured model entry, through the AI SDK's provider layer
 * (`LanguageModelV4`). Every entry is an OpenAI-compatible chat endpoint (OpenAI, OpenRouter,
 * DashScope, Ollama, llama.cpp, vLLM, and `model.providers`); usage is requested in the stream.
 * The provider package is imported on first use, so an agent that never prompts (and its start)
 * does not pay for it.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelEntry } from "../../config/agent-config.ts";

export async function languageModelFor(entry: ModelEntry): Promise<LanguageModelV4> {
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  const provider = createOpenAICompatible({ name: entry.providerId, baseURL: entry.baseUrl, ...(entry.apiKey ? { apiKey: entry.apiKey } : {}), includeUsage: true });
  return provider.chatModel(entry.model);
}
