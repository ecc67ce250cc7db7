/**
 * The language model of a configured model entry, through the AI SDK's provider layer
 * (`LanguageModelV4`). Every entry is an OpenAI-compatible chat endpoint (OpenAI, OpenRouter,
 * DashScope, Ollama, llama.cpp, vLLM, and `model.providers`); usage is requested in the stream.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelEntry } from "../../config/agent-config.ts";

export function languageModelFor(entry: ModelEntry): LanguageModelV4 {
  const provider = createOpenAICompatible({ name: entry.providerId, baseURL: entry.baseUrl, ...(entry.apiKey ? { apiKey: entry.apiKey } : {}), includeUsage: true });
  return provider.chatModel(entry.model);
}
