/**
 * What the agent sends over ACP is bounded in bytes (hostile review findings 4 and 9, issue 22,
 * and the write_file cap): big arguments reach the client as a preview, big tool results (MCP
 * included) and diffs are cut, a write over the cap is refused before any diff is shown, the
 * model's ids are never the client's, titles and plan entries are cut by their UTF-8 size, and a
 * reply past a round's bounds ends the turn `output_too_large` with what was kept saved.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { CONTENT_TEXT_CAP_BYTES, ERROR_DETAILS_BYTES, PLAN_ENTRY_BYTES, RAW_INPUT_PREVIEW_BYTES, TITLE_CAP_BYTES } from "../../src/builtin-agent/acp-bounds.ts";
import { MAX_ROUND_TEXT_BYTES, MAX_ROUND_THOUGHT_BYTES, MAX_ROUND_TOOL_INPUT_BYTES, MAX_TOOL_NAME_BYTES } from "../../src/builtin-agent/model/model-round.ts";
import { MAX_PART_BYTES } from "../../src/builtin-agent/compaction.ts";
import { MAX_MODEL_CALL_ID_BYTES } from "../../src/builtin-agent/turn.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../../src/config/agent-config.ts";
import { WRITE_CAP_BYTES } from "../../src/workspace/file-limits.ts";
import { rpcError, startAgent } from "./agent-client.ts";

const SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

type Call = acp.SessionUpdate & { sessionUpdate: "tool_call" | "tool_call_update" };
const calls = (updates: acp.SessionUpdate[]) => updates.filter((u): u is Call => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
const largest = (updates: acp.SessionUpdate[]) => Math.max(...updates.map((u) => Buffer.byteLength(JSON.stringify(u))));
const HUGE = 17 * 1024 * 1024;
const savedFile = (sessionId: string) => join(process.env.SVC_HOME!, "agent", "sessions", `${sessionId}.jsonl`);
/** The chat-completions messages of the model's last request. */
type ChatMessage = { role: string; content?: string | null; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string } }> };
const lastMessages = (requests: unknown[]) => (requests.at(-1) as { messages: ChatMessage[] }).messages;
/** Peak resident memory of a process (Linux), in MiB. */
const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

describe("bounded ACP output", () => {
  test("an MCP tool's big result is cut for the client like shell output; its big arguments go out as a preview", async () => {
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [SERVER] } } }));
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "x".repeat(1024 * 1024) } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "big echo");
    const announced = calls(updates).find((u) => u.sessionUpdate === "tool_call")!;
    expect(announced.rawInput).toMatchObject({ truncated: true, totalBytes: JSON.stringify({ text: "x".repeat(1024 * 1024) }).length });
    const done = calls(updates).find((u) => u.status === "completed")!;
    const text = (done.content![0] as { content: { text: string } }).content.text;
    expect(text).toContain("[cut for the client:");
    expect(text.length).toBeLessThan(CONTENT_TEXT_CAP_BYTES + 200);
    expect(largest(updates)).toBeLessThan(CONTENT_TEXT_CAP_BYTES + RAW_INPUT_PREVIEW_BYTES + 4096);
  });

  test("write_file over the write cap is refused before any diff is computed or shown", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "big.txt", content: "w".repeat(WRITE_CAP_BYTES + 1) } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "big write");
    expect(calls(updates).some((u) => u.content?.some((c) => c.type === "diff"))).toBe(false);
    expect(calls(updates).at(-1)?.status).toBe("failed");
    expect(JSON.stringify(calls(updates).at(-1)?.content)).toContain(`over the ${WRITE_CAP_BYTES}-byte write limit`);
    expect(existsSync(join(a.workspace, "big.txt"))).toBe(false);
    expect(largest(updates)).toBeLessThan(RAW_INPUT_PREVIEW_BYTES + 4096);
  });

  test("an edit whose diff is over the diff cap is shown as a note, and still applied", async () => {
    await using a = await startAgent({ files: { "f.txt": "marker\n" }, trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "edit", args: { file_path: "f.txt", old_string: "marker", new_string: "e".repeat(2 * 1024 * 1024) } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "big edit");
    expect(calls(updates).at(-1)?.status).toBe("completed");
    expect(JSON.stringify(calls(updates).at(-1)?.content)).toContain("not shown");
    expect(largest(updates)).toBeLessThan(RAW_INPUT_PREVIEW_BYTES + 4096);
    expect(Bun.file(join(a.workspace, "f.txt")).size).toBe(2 * 1024 * 1024 + 1);
  });
});

describe("bounded in bytes: ids, titles, plan entries", () => {
  test("a 17 MB tool-call id: the client sees the agent's id, the model is answered under it", async () => {
    await using a = await startAgent({ files: { "f.txt": "hello\n" }, workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      {
        kind: "tools",
        calls: [
          { id: "i".repeat(HUGE), name: "read_file", args: { file_path: "f.txt" } },
          { id: "call_short", name: "list_directory", args: { path: "." } },
        ],
      },
      { kind: "text", text: "ok" },
    );
    const { response, updates } = await a.turn(sessionId, "huge ids");
    expect(response.stopReason).toBe("end_turn");
    expect(largest(updates)).toBeLessThan(4096);
    const announced = updates.filter((u) => u.sessionUpdate === "tool_call");
    expect(announced.map((u) => u.toolCallId)).toEqual([expect.stringMatching(/^call_[0-9a-f-]{36}$/), expect.stringMatching(/^call_[0-9a-f-]{36}$/)]);

    // The model gets each result under the id of its call: its own when short, the agent's in place of the 17 MB one.
    const messages = lastMessages(a.model.requests);
    const calls = messages.find((m) => m.role === "assistant" && m.tool_calls)!.tool_calls!;
    const results = messages.filter((m) => m.role === "tool");
    expect(calls[1]!.id).toBe("call_short");
    expect(Buffer.byteLength(calls[0]!.id)).toBeLessThanOrEqual(MAX_MODEL_CALL_ID_BYTES);
    expect(results.map((r) => r.tool_call_id)).toEqual([calls[0]!.id, "call_short"]);
    expect(results[0]!.content).toBe("hello\n");
    expect(JSON.stringify(a.model.requests.at(-1)).length).toBeLessThan(64 * 1024);
    expect(statSync(savedFile(sessionId)).size).toBeLessThan(64 * 1024);
    expect((await a.turn(sessionId, "still there?")).response.stopReason).toBe("end_turn");
  });

  test("tool names no tool has (12 calls of 2 MB names) end the turn output_too_large at the first; nothing of them is kept or shown; the session goes on", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: Array.from({ length: 12 }, (_, i) => ({ id: `call_${i}`, name: "n".repeat(2 * 1024 * 1024), args: {} })) });
    const error = (await rpcError(a.prompt(sessionId, "long names"))).data as { errorKind: string; details: string };
    expect(error).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_TOOL_NAME_BYTES} bytes in a tool's name`) });
    expect(largest(a.updatesOf(sessionId))).toBeLessThan(4096);
    expect(statSync(savedFile(sessionId)).size).toBeLessThan(64 * 1024);
    a.model.enqueue({ kind: "text", text: "fine" });
    expect((await a.turn(sessionId, "still there?")).response.stopReason).toBe("end_turn");
  });

  test("a glob pattern and a plan entry of 1.9 million € (5.7 MB each) reach the client cut by their UTF-8 size", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    const euros = "€".repeat(1_900_000);
    a.model.enqueue({ kind: "tools", calls: [{ name: "glob", args: { pattern: euros } }] }, { kind: "tools", calls: [{ name: "todo_write", args: { todos: [{ content: euros }] } }] }, { kind: "text", text: "ok" });
    const { response, updates } = await a.turn(sessionId, "euros");
    expect(response.stopReason).toBe("end_turn");
    expect(largest(updates)).toBeLessThan(RAW_INPUT_PREVIEW_BYTES + 4096);
    const titles = calls(updates).flatMap((u) => (u.title ? [u.title] : []));
    expect(titles.length).toBeGreaterThan(0);
    for (const title of titles) expect(Buffer.byteLength(title)).toBeLessThanOrEqual(TITLE_CAP_BYTES);
    const plan = updates.find((u) => u.sessionUpdate === "plan") as acp.SessionUpdate & { sessionUpdate: "plan" };
    expect(Buffer.byteLength(plan.entries[0]!.content)).toBeLessThanOrEqual(PLAN_ENTRY_BYTES);
    expect(plan.entries[0]!.content.startsWith("€€€")).toBe(true);
  });

  test("a plan entry of 5.9 million € (17.7 MB of arguments) ends the turn output_too_large; the session goes on", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "todo_write", args: { todos: [{ content: "€".repeat(5_900_000) }] } }] });
    const error = await rpcError(a.prompt(sessionId, "plan"));
    expect(error.data).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_ROUND_TOOL_INPUT_BYTES} bytes of tool-call arguments`) });
    expect(a.updatesOf(sessionId).some((u) => u.sessionUpdate === "plan" || u.sessionUpdate === "tool_call")).toBe(false);
    expect((await a.turn(sessionId, "next")).response.stopReason).toBe("end_turn");
  });
});

describe("the model's reply is bounded", () => {
  test("every request carries an output token limit: the default, or the provider entry's maxOutputTokens", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hi");
    expect(a.model.requests.at(-1)).toMatchObject({ max_tokens: DEFAULT_MAX_OUTPUT_TOKENS });

    writeFileSync(hostSettings, JSON.stringify({ model: { providers: [{ id: "local", baseUrl: a.model.baseUrl, models: ["m"], maxOutputTokens: 1234 }] } }));
    await using b = await startAgent({ env: {} });
    const opened = await b.newSession();
    expect(opened.models?.currentModelId).toBe("local/m");
    await b.turn(opened.sessionId, "hi");
    expect(b.model.requests).toHaveLength(0);
    expect(a.model.requests.at(-1)).toMatchObject({ model: "m", max_tokens: 1234 });
  });

  test("a 200 MB streamed reply: the stream is cut at the round's text bound, the turn fails output_too_large, memory and the saved file stay small, the next turn works", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "flood", bytes: 200 * 1024 * 1024 });
    const error = await rpcError(a.prompt(sessionId, "flood me"));
    expect(error.data).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_ROUND_TEXT_BYTES} bytes of text`) });
    expect(a.model.floodedBytes()).toBeLessThan(32 * 1024 * 1024);
    expect(Buffer.byteLength(a.agentText(sessionId))).toBe(MAX_ROUND_TEXT_BYTES);
    expect(largest(a.updatesOf(sessionId))).toBeLessThan(128 * 1024);
    const peak = peakRssMiB(a.proc.pid);
    console.error(`agent peak RSS after a 200 MB reply: ${peak.toFixed(0)} MiB`);
    expect(peak).toBeLessThan(400);
    expect(statSync(savedFile(sessionId)).size).toBeLessThan(MAX_ROUND_TEXT_BYTES + 64 * 1024);

    // What was kept (the reply up to the bound) is more than the model's window can take again
    // (about 300,000 tokens for 128,000): the next turn first has it summarised (its start, cut to
    // the transcript's part bound) and sends the summary in its place.
    expect((await a.turn(sessionId, "please answer")).response.stopReason).toBe("end_turn");
    const summaryRequest = (a.model.requests as Array<{ messages: Array<{ role: string; content: string | null }> }>).at(-2)!;
    expect(summaryRequest.messages[0]!.content).toStartWith("You compress the earlier part");
    expect(summaryRequest.messages[1]!.content!.length).toBeLessThan(2 * MAX_PART_BYTES);
    const sent = lastMessages(a.model.requests);
    expect(sent.find((m) => m.role === "assistant")).toBeUndefined();
    expect(JSON.stringify(sent.find((m) => m.role === "user")!.content)).toStartWith(`[{"type":"text","text":"[Summary of the earlier conversation (2 messages)`);
  });

  test("a provider's 17 MB error text is read to its bound and reaches the client cut to ERROR_DETAILS_BYTES", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "status", status: 400, message: "e".repeat(HUGE) });
    const details = ((await rpcError(a.prompt(sessionId, "fail"))).data as { details: string }).details;
    // Cut at MAX_ERROR_BODY_BYTES the body is no JSON to take the message from: its start is shown.
    expect(details).toStartWith(`model openai/mock-model: HTTP 400: Bad Request; not retryable; the answer's body begins: {"error":{"message":"eee`);
    expect(Buffer.byteLength(details)).toBeLessThanOrEqual(ERROR_DETAILS_BYTES);
  });

  test("a flood of reasoning or of tool-call arguments is cut the same way", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "flood", bytes: 200 * 1024 * 1024, as: "reasoning" });
    expect((await rpcError(a.prompt(sessionId, "think"))).data).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_ROUND_THOUGHT_BYTES} bytes of reasoning`) });
    a.model.enqueue({ kind: "flood", bytes: 200 * 1024 * 1024, as: "tool-arguments" });
    expect((await rpcError(a.prompt(sessionId, "write"))).data).toMatchObject({ errorKind: "output_too_large", details: expect.stringContaining(`${MAX_ROUND_TOOL_INPUT_BYTES} bytes of tool-call arguments`) });
    expect(existsSync(join(a.workspace, "flood.txt"))).toBe(false);
    expect(a.model.floodedBytes()).toBeLessThan(64 * 1024 * 1024);
    expect(largest(a.updatesOf(sessionId))).toBeLessThan(128 * 1024);
    expect((await a.turn(sessionId, "next")).response.stopReason).toBe("end_turn");
  });
});
