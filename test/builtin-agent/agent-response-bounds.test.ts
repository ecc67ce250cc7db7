/**
 * The model's HTTP response is bounded in bytes before anything parses it (hostile review round 2,
 * issue 22 deliverable 4): one SSE line that never ends, one 200 MB event, events that carry
 * nothing, and a 300 MB error body each end the turn at once with a clear error naming the bound,
 * the agent reads little of them and its memory stays small; a stream that keeps sending bytes is
 * not taken for a stalled one.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_ERROR_BODY_BYTES, MAX_RESPONSE_BYTES, MAX_STREAM_EVENT_BYTES } from "../../src/builtin-agent/model/model-round.ts";
import { rpcError, startAgent } from "./agent-client.ts";

const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

const MB = 1024 * 1024;
// What the mock can have written past the point the agent stops reading: the loopback socket's buffers
// (they grow under a fast writer) and the mock's write in flight. Far below what each test offers.
const BUFFERED = 48 * MB;
/** Peak resident memory of a process (Linux), in MiB. */
const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
type TurnError = { details: string; errorKind?: string };

describe("the model's response, bounded before it is parsed", () => {
  test("an SSE line that never ends (1.5 GB offered) and a 200 MB event end their turns output_too_large at the event bound; little is read, memory stays small", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    const started = performance.now();
    a.model.enqueue({ kind: "flood", bytes: 1536 * MB, as: "unterminated-line" });
    const line = (await rpcError(a.prompt(sessionId, "one endless line"))).data as TurnError;
    expect(line).toMatchObject({ errorKind: "output_too_large", details: `model openai/mock-model: the reply passed the limit of ${MAX_STREAM_EVENT_BYTES} bytes in one event of the response stream; it was stopped there` });
    // Ended by the bound, long before the stall timer (120 s) could.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(a.model.floodedBytes()).toBeLessThan(MAX_STREAM_EVENT_BYTES + BUFFERED);

    a.model.enqueue({ kind: "flood", bytes: 200 * MB, as: "one-event" });
    const event = (await rpcError(a.prompt(sessionId, "one huge event"))).data as TurnError;
    expect(event).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_STREAM_EVENT_BYTES} bytes in one event`) });
    expect(a.model.floodedBytes()).toBeLessThan(2 * (MAX_STREAM_EVENT_BYTES + BUFFERED));
    const peak = peakRssMiB(a.proc.pid);
    console.error(`agent peak RSS after an endless SSE line and a 200 MB event: ${peak.toFixed(0)} MiB`);
    expect(peak).toBeLessThan(400);
    expect((await a.turn(sessionId, "please answer")).response.stopReason).toBe("end_turn");
  });

  test("a 300 MB error body is read only to its bound: the turn fails at once with the status and the body's start", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "status", status: 400, bodyBytes: 300 * MB });
    const error = (await rpcError(a.prompt(sessionId, "fail"))).data as TurnError;
    expect(error.details).toStartWith('model openai/mock-model: HTTP 400: Bad Request; not retryable; the answer\'s body begins: {"error":{"type":"mock_error","message":"EEE');
    // What the loopback socket buffers took, not the 300 MB.
    expect(a.model.floodedBytes()).toBeLessThan(MAX_ERROR_BODY_BYTES + BUFFERED);
    // Retried answers are each read to the bound too.
    a.model.enqueue(...Array.from({ length: 4 }, () => ({ kind: "status" as const, status: 500, bodyBytes: 300 * MB, headers: { "retry-after-ms": "1" } })));
    expect(((await rpcError(a.prompt(sessionId, "fail again"))).data as TurnError).details).toContain("HTTP 500");
    expect(a.model.floodedBytes()).toBeLessThan(5 * (MAX_ERROR_BODY_BYTES + BUFFERED));
    expect(peakRssMiB(a.proc.pid)).toBeLessThan(400);
  });

  test(`events that carry nothing end the turn at the response bound (${MAX_RESPONSE_BYTES} bytes)`, async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "flood", bytes: 2 * MAX_RESPONSE_BYTES, as: "empty-events" });
    const error = (await rpcError(a.prompt(sessionId, "nothing, forever"))).data as TurnError;
    expect(error).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_RESPONSE_BYTES} bytes in one response`) });
    expect(a.model.floodedBytes()).toBeLessThan(MAX_RESPONSE_BYTES + BUFFERED);
  });

  test("bytes that parse to no part (SSE comments) keep the stream from counting as stalled", async () => {
    writeFileSync(hostSettings, JSON.stringify({ model: { streamIdleTimeoutMs: 400 } }));
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "keepalive", comments: 12, intervalMs: 100, text: "after the keepalives" });
    const { response } = await a.turn(sessionId, "slow start");
    expect(response.stopReason).toBe("end_turn");
    expect(a.agentText(sessionId)).toBe("after the keepalives");
    // Silence is still a stall.
    a.model.enqueue({ kind: "hang", text: "partial" });
    expect(((await rpcError(a.prompt(sessionId, "hang"))).data as TurnError).details).toContain("stalled: nothing arrived for 400 ms");
  });
});
