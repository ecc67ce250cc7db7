/** How the built-in agent meets provider failures: bounded retries, then a turn error naming the cause. */
import { describe, expect, test } from "bun:test";
import { rpcError, startAgent } from "./agent-client.ts";

type ErrorData = { details: string; errorKind?: string };

describe("provider errors", () => {
  test("429 and 503 are retried, honouring Retry-After, and the turn then completes", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "status", status: 429, headers: { "Retry-After": "0" } }, { kind: "status", status: 503, headers: { "retry-after-ms": "1" } }, { kind: "text", text: "third time lucky" });
    const { response } = await a.turn(sessionId, "hi");
    expect(response.stopReason).toBe("end_turn");
    expect(a.agentText(sessionId)).toBe("third time lucky");
    expect(a.model.requests).toHaveLength(3);
  });

  test("retries are bounded: persistent 500s end the turn with the status, after 1 + 3 attempts", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    for (let i = 0; i < 4; i++) a.model.enqueue({ kind: "status", status: 500, headers: { "Retry-After": "0" }, message: "upstream exploded" });
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as ErrorData;
    expect(data.details).toContain("HTTP 500");
    expect(data.details).toContain("upstream exploded");
    expect(data.details).toContain("gave up after 3 retries");
    expect(a.model.requests).toHaveLength(4);
    // The session stays usable.
    await a.turn(sessionId, "again");
    expect(a.agentText(sessionId)).toBe("mock reply: again");
  });

  test("a Retry-After longer than the agent waits fails at once, naming the wait", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "status", status: 429, headers: { "Retry-After": "3600" } });
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as ErrorData;
    expect(data.details).toContain("HTTP 429");
    expect(data.details).toContain("asked to wait 3600 s");
    expect(a.model.requests).toHaveLength(1);
  });

  test("401 is not retried and is an auth_env_error", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "status", status: 401, message: "bad key" });
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as ErrorData;
    expect(data.errorKind).toBe("auth_env_error");
    expect(data.details).toContain("HTTP 401");
    expect(a.model.requests).toHaveLength(1);
  });

  test("400 is not retried", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    const data = (await rpcError(a.prompt(sessionId, "please fail"))).data as ErrorData;
    expect(data.details).toContain("mock-openai scripted failure");
    expect(data.errorKind).toBeUndefined();
    expect(a.model.requests).toHaveLength(1);
  });

  test("a malformed frame is an error, not a shorter answer", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "malformed", text: "partial " });
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as ErrorData;
    expect(data.errorKind).toBe("model_stream_interrupted");
  });

  test("a stream that ends without a finish reason is an error", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "truncated", text: "half an ans" });
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as ErrorData;
    expect(data.errorKind).toBe("model_stream_interrupted");
    expect(data.details).toContain("ended without a finish reason");
  });

  test("an unreachable endpoint is retried, then named", async () => {
    await using a = await startAgent({ env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1", OPENAI_MODEL: "m" } });
    const { sessionId } = await a.newSession();
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as ErrorData;
    expect(data.details).toContain("cannot reach http://127.0.0.1:1/v1/chat/completions");
  });
});
