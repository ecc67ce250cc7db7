/** The built-in agent's per-session counters (`session-stats.ts`): what a model request outside the conversation changes. */
import { expect, test } from "bun:test";
import { SessionStats } from "../../../src/builtin-agent/session-stats.ts";

test("a generation (recap, title, side question) is counted but is not the conversation's last usage, which measures its context", () => {
  const stats = new SessionStats();
  stats.modelRequest("m", 10, { inputTokens: 900, outputTokens: 100 });
  stats.modelRequest("m", 5, { inputTokens: 40, outputTokens: 7 }, false);
  expect(stats.lastUsage).toEqual({ modelId: "m", inputTokens: 900, outputTokens: 100 });
  expect(stats.report().models.m?.tokens).toMatchObject({ prompt: 940, candidates: 107 });
});
