/**
 * What the daemon passes on of an agent's error answer is bounded in bytes (hostile review round 2):
 * a 12 MiB `data.details` becomes a `turn_error` message of at most MAX_AGENT_ERROR_DETAILS_BYTES
 * (its `errorKind` kept), so no subscriber is evicted and the journal keeps a small row; an HTTP
 * error body forwards small `data` as the agent sent it and replaces large data by a note of its size.
 */
import { describe, expect, test } from "bun:test";
import { MAX_AGENT_ERROR_DATA_BYTES, MAX_AGENT_ERROR_DETAILS_BYTES } from "../../src/runtime/agent-error-data.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const MIB = 1024 * 1024;

describe("an agent's error data, bounded", () => {
  test("12 MiB of details end the turn with a turn_error cut in bytes; every subscriber stays, and the transcript row is small", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession();
    await using first = await d.events(sessionId);
    await using second = await d.events(sessionId);
    const admitted = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@huge 12 error" }] });
    expect(admitted.status).toBe(202);
    const error = await first.first("turn_error", (f) => f.data.promptId === admitted.body.promptId, 20_000);
    const message = error.data.message as string;
    expect(message).toStartWith("xxx");
    expect(message).toEndWith("…");
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(MAX_AGENT_ERROR_DETAILS_BYTES);
    expect(error.data).toMatchObject({ code: "-32603", errorKind: "model_stream_interrupted" });
    expect(Buffer.byteLength(error.raw)).toBeLessThan(MAX_AGENT_ERROR_DETAILS_BYTES + 1024);
    await second.first("turn_error");
    expect([...first.types(), ...second.types()]).not.toContain("client_evicted");

    const transcript = await d.json("GET", `/session/${sessionId}/transcript?limit=500`);
    expect(Buffer.byteLength(JSON.stringify(transcript.body))).toBeLessThan(64 * 1024);
    await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "still here" }] });
    await first.first("turn_complete");
  });

  test("an error body forwards small data as the agent sent it, and large data as a note of its size", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await using events = await d.events(sessionId);
    await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@huge 0 new-error" }] });
    await events.waitFor("turn_complete");
    const small = await d.json("POST", "/session", { sessionScope: "thread" });
    expect(small.status).toBe(500);
    expect(small.body).toEqual({ error: "fake session/new failure", code: -32603, data: { details: "" } });

    await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@huge 12 new-error" }] });
    await events.waitFor("turn_complete");
    const large = await d.json("POST", "/session", { sessionScope: "thread" });
    expect(large.status).toBe(500);
    expect(large.body).toEqual({ error: "fake session/new failure", code: -32603, data: { truncated: true, totalBytes: 12 * MIB + '{"details":""}'.length } });
    expect(Buffer.byteLength(JSON.stringify(large.body))).toBeLessThan(MAX_AGENT_ERROR_DATA_BYTES);
  });
});
