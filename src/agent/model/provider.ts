/**
 * The language model of a configured model entry, through the AI SDK's provider layer
 * (`LanguageModelV4`): OpenAI-compatible chat endpoints (OpenAI, OpenRouter, DashScope, Ollama,
 * llama.cpp, vLLM), Anthropic's Messages API and Google's Gemini API. Usage is requested in the
 * stream. The provider package is imported on first use, so an agent that never prompts (and its
 * start) does not pay for it.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelEntry } from "../../config/agent-config.ts";

export async function languageModelFor(entry: ModelEntry): Promise<LanguageModelV4> {
  const apiKey = entry.apiKey ? { apiKey: entry.apiKey } : {};
  switch (entry.kind) {
    case "openai-compatible": {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: entry.providerId, baseURL: entry.baseUrl, ...apiKey, includeUsage: true }).chatModel(entry.model);
    }
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      // A keyless entry (a local stand-in) sends an empty key rather than reading the environment.
      return createAnthropic({ baseURL: entry.baseUrl, apiKey: entry.apiKey ?? "" }).languageModel(entry.model);
    }
    case "google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI({ baseURL: entry.baseUrl, apiKey: entry.apiKey ?? "" }).languageModel(entry.model);
    }
  }
}
