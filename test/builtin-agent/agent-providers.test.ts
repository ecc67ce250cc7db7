/** The built-in agent against Anthropic's and Google's wire formats (the mock model speaks both). */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_ERROR_BODY_BYTES } from "../../src/builtin-agent/model/model-round.ts";
import { startMockModel } from "../fixtures/mock-model.ts";
import { rpcError, startAgent } from "./agent-client.ts";

const model = startMockModel();
afterAll(() => model[Symbol.asyncDispose]());
const DIALECTS = [
  { name: "anthropic", env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: `${model.url}/v1`, ANTHROPIC_MODEL: "claude-mock" }, modelId: "anthropic/claude-mock" },
  { name: "google", env: { GEMINI_API_KEY: "test-key", GEMINI_BASE_URL: `${model.url}/v1beta`, GEMINI_MODEL: "gemini-mock" }, modelId: "google/gemini-mock" },
] as const;

for (const dialect of DIALECTS)
  describe(`${dialect.name} models`, () => {
    test("a text turn streams and reports usage", async () => {
      await using a = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, OPENAI_BASE_URL: undefined, ...dialect.env } });
      const session = await a.newSession();
      expect(session.models?.currentModelId).toBe(dialect.modelId);
      const { response } = await a.turn(session.sessionId, "hello from a test");
      expect(response.stopReason).toBe("end_turn");
      expect(a.agentText(session.sessionId)).toBe("mock reply: hello from a test");
      expect(response._meta?.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    });

    test("a tool call round trip writes the file and feeds the result back", async () => {
      await using a = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, OPENAI_BASE_URL: undefined, ...dialect.env }, trusted: true, approvalMode: "yolo" });
      const { sessionId } = await a.newSession();
      const target = join(a.workspace, "out.txt");
      const { response } = await a.turn(sessionId, `please write ${target}`);
      expect(response.stopReason).toBe("end_turn");
      expect(readFileSync(target, "utf8")).toBe("hello from mock\n");
      expect(a.agentText(sessionId)).toBe("tool finished");
    });

    test("a 401 is an auth_env_error", async () => {
      await using a = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, OPENAI_BASE_URL: undefined, ...dialect.env } });
      const { sessionId } = await a.newSession();
      model.enqueue({ kind: "status", status: 401, message: "bad key" });
      expect(((await rpcError(a.prompt(sessionId, "hi"))).data as { errorKind: string }).errorKind).toBe("auth_env_error");
      expect(existsSync(join(a.workspace, "out.txt"))).toBe(false);
    });

    test("its requests go through the bounded fetch: a 300 MB error body is read only to its bound", async () => {
      await using a = await startAgent({ env: { OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, OPENAI_BASE_URL: undefined, ...dialect.env } });
      const { sessionId } = await a.newSession();
      const before = model.floodedBytes();
      model.enqueue({ kind: "status", status: 400, bodyBytes: 300 * 1024 * 1024 });
      expect(((await rpcError(a.prompt(sessionId, "hi"))).data as { details: string }).details).toContain("HTTP 400");
      // What the loopback socket buffers took, not the 300 MB.
      expect(model.floodedBytes() - before).toBeLessThan(MAX_ERROR_BODY_BYTES + 16 * 1024 * 1024);
    });
  });
