/**
 * The language model of a configured model entry, through the AI SDK's provider layer
 * (`LanguageModelV4`): OpenAI-compatible chat endpoints (OpenAI, OpenRouter, DashScope, Ollama,
 * llama.cpp, vLLM), Anthropic's Messages API and Google's Gemini API. Usage is requested in the
 * stream. The provider package is imported on first use, so an agent that never prompts (and its
 * start) does not pay for it. Every request goes through the fetch the caller gives (a model round
 * gives its own bounded one, see `model-round.ts`); building the model around it costs nothing.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelEntry } from "../../config/agent-config.ts";
import type { FetchFn } from "../bounded-fetch.ts";

/** A model entry's language model whose requests go through `fetch`. */
export type ModelClient = (fetch: FetchFn) => LanguageModelV4;

export async function modelClientFor(entry: ModelEntry): Promise<ModelClient> {
  const apiKey = entry.apiKey ? { apiKey: entry.apiKey } : {};
  switch (entry.kind) {
    case "openai-compatible": {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return (fetch) => createOpenAICompatible({ name: entry.providerId, baseURL: entry.baseUrl, ...apiKey, includeUsage: true, fetch: fetch as typeof globalThis.fetch }).chatModel(entry.model);
    }
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      // A keyless entry (a local stand-in) sends an empty key rather than reading the environment.
      return (fetch) => createAnthropic({ baseURL: entry.baseUrl, apiKey: entry.apiKey ?? "", fetch: fetch as typeof globalThis.fetch }).languageModel(entry.model);
    }
    case "google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return (fetch) => createGoogleGenerativeAI({ baseURL: entry.baseUrl, apiKey: entry.apiKey ?? "", fetch: fetch as typeof globalThis.fetch }).languageModel(entry.model);
    }
  }
}
