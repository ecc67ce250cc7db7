/**
 * The mock model's dialects as the real CLIs use them (the interop scenario drives the CLIs
 * themselves; this checks the wire shapes without them, in the ordinary suite): the OpenAI
 * Responses stream (text deltas, function calls, `response.completed`), the side endpoints (model
 * lists, token counts, Google's non-streaming `:generateContent`), the prompt-keyed script, a slow
 * stream that stops when the client goes away, and 404 + a record for any other path.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ANSWER_TEXT, startMockModel, type MockModel } from "../fixtures/mock-model.ts";

let mock: MockModel;
afterEach(async () => await mock?.[Symbol.asyncDispose]());

/** The `data:` payloads of an event stream (Responses and Anthropic frames also name their event). */
async function frames(response: Response): Promise<Array<{ event?: string; data: any }>> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      return { event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) };
    });
}

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${mock.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal });

describe("mock model dialects", () => {
  test("Responses: `please answer` streams output_text deltas, then a completed response with usage", async () => {
    mock = startMockModel();
    const reply = await post("/v1/responses", { model: "m", stream: true, input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "please answer" }] }] });
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    const got = await frames(reply);
    for (const f of got) expect(f.event).toBe(f.data.type);
    expect(got.map((f) => f.data.sequence_number)).toEqual(got.map((_, i) => i));
    expect(got.filter((f) => f.data.type === "response.output_text.delta").map((f) => f.data.delta).join("")).toBe(ANSWER_TEXT);
    const done = got.at(-1)!.data;
    expect(done).toMatchObject({ type: "response.completed", response: { status: "completed", output: [{ type: "message", content: [{ type: "output_text", text: ANSWER_TEXT }] }] } });
    expect(done.response.usage.total_tokens).toBeGreaterThan(0);
  });

  test("Responses: `please write` is a function call with the agent's write tool; its output makes the next answer plain text", async () => {
    mock = startMockModel({ writeCall: (path, content) => ({ name: "exec_command", args: { cmd: `write ${path}`, content } }) });
    const got = await frames(await post("/v1/responses", { input: [{ type: "message", role: "user", content: "please write /tmp/x" }] }));
    const call = got.find((f) => f.data.type === "response.output_item.done")!.data.item;
    expect(call).toMatchObject({ type: "function_call", name: "exec_command", status: "completed" });
    expect(JSON.parse(call.arguments)).toEqual({ cmd: "write /tmp/x", content: "hello from mock\n" });
    expect(got.at(-1)!.data.response.output).toEqual([call]);
    const after = await frames(await post("/v1/responses", { input: [{ type: "message", role: "user", content: "please write /tmp/x" }, { type: "function_call", call_id: call.call_id }, { type: "function_call_output", call_id: call.call_id, output: "ok" }] }));
    expect(after.filter((f) => f.data.type === "response.output_text.delta").map((f) => f.data.delta).join("")).toBe("tool finished");
  });

  test("side endpoints: model lists in each dialect, token counts, Google's non-streaming generateContent, Anthropic without stream", async () => {
    mock = startMockModel();
    expect((await (await fetch(`${mock.url}/v1/models`)).json()).data[0].id).toBe("mock-model");
    expect((await (await fetch(`${mock.url}/v1beta/models`)).json()).models[0].name).toBe("models/mock-model");
    expect(await (await post("/v1/messages/count_tokens", { messages: [] })).json()).toEqual({ input_tokens: 10 });
    expect(await (await post("/v1beta/models/m:countTokens", { contents: [] })).json()).toEqual({ totalTokens: 10 });
    const google = await (await post("/v1beta/models/m:generateContent", { contents: [{ role: "user", parts: [{ text: "please answer" }] }] })).json();
    expect(google.candidates[0]).toMatchObject({ content: { parts: [{ text: ANSWER_TEXT }] }, finishReason: "STOP" });
    const anthropic = await (await post("/v1/messages", { stream: false, messages: [{ role: "user", content: "please answer" }] })).json();
    expect(anthropic).toMatchObject({ type: "message", content: [{ type: "text", text: ANSWER_TEXT }], stop_reason: "end_turn" });
    expect(mock.unexpected).toEqual([]);
  });

  test("`please stream slowly` is still streaming after its first chunks, in every dialect", async () => {
    mock = startMockModel();
    const requests: Array<[string, unknown]> = [
      ["/v1/chat/completions", { stream: true, messages: [{ role: "user", content: "please stream slowly" }] }],
      ["/v1/messages", { stream: true, messages: [{ role: "user", content: "please stream slowly" }] }],
      ["/v1beta/models/m:streamGenerateContent", { contents: [{ role: "user", parts: [{ text: "please stream slowly" }] }] }],
      ["/v1/responses", { input: [{ type: "message", role: "user", content: "please stream slowly" }] }],
    ];
    for (const [path, body] of requests) {
      const abort = new AbortController();
      const reply = await post(path, body, abort.signal);
      const reader = reply.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      // Some text has come, and none of the dialects' end markers.
      const ended = ["[DONE]", "message_stop", "response.completed", "STOP"].some((end) => first.includes(end));
      expect({ path, slow: first.includes("slow"), ended }).toEqual({ path, slow: true, ended: false });
      abort.abort();
      await reader.cancel().catch(() => {});
    }
  });

  test("Anthropic: tool results and the next prompt's text in one user message answer the text (as Claude Code sends them)", async () => {
    mock = startMockModel();
    const content = (blocks: unknown[]) => ({ stream: false, messages: [{ role: "user", content: blocks }] });
    const toolOnly = await (await post("/v1/messages", content([{ type: "tool_result", tool_use_id: "t1", content: "ok" }]))).json();
    expect(toolOnly.content).toEqual([{ type: "text", text: "tool finished" }]);
    const withText = await (await post("/v1/messages", content([{ type: "tool_result", tool_use_id: "t1", content: "ok" }, { type: "text", text: "please answer" }]))).json();
    expect(withText.content).toEqual([{ type: "text", text: ANSWER_TEXT }]);
  });

  test("any other path answers 404 and is recorded", async () => {
    mock = startMockModel();
    const reply = await post("/v1/telemetry", {});
    expect(reply.status).toBe(404);
    await reply.text();
    expect(mock.unexpected).toEqual(["POST /v1/telemetry"]);
  });
});
