/**
 * What the agent sends over ACP is bounded (hostile review findings 4 and 9, and the write_file
 * cap): big arguments reach the client as a preview, big tool results (MCP included) and diffs are
 * cut, and a write over the cap is refused before any diff is shown.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { CONTENT_TEXT_CAP_CHARS, RAW_INPUT_PREVIEW_CHARS } from "../../src/agent/acp-bounds.ts";
import { WRITE_CAP_BYTES } from "../../src/workspace/file-limits.ts";
import { startAgent } from "./agent-client.ts";

const SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

type Call = acp.SessionUpdate & { sessionUpdate: "tool_call" | "tool_call_update" };
const calls = (updates: acp.SessionUpdate[]) => updates.filter((u): u is Call => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
const largest = (updates: acp.SessionUpdate[]) => Math.max(...updates.map((u) => JSON.stringify(u).length));

describe("bounded ACP output", () => {
  test("an MCP tool's big result is cut for the client like shell output; its big arguments go out as a preview", async () => {
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [SERVER] } } }));
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "x".repeat(1024 * 1024) } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "big echo");
    const announced = calls(updates).find((u) => u.sessionUpdate === "tool_call")!;
    expect(announced.rawInput).toMatchObject({ truncated: true, totalChars: JSON.stringify({ text: "x".repeat(1024 * 1024) }).length });
    const done = calls(updates).find((u) => u.status === "completed")!;
    const text = (done.content![0] as { content: { text: string } }).content.text;
    expect(text).toContain("[cut for the client:");
    expect(text.length).toBeLessThan(CONTENT_TEXT_CAP_CHARS + 200);
    expect(largest(updates)).toBeLessThan(CONTENT_TEXT_CAP_CHARS + RAW_INPUT_PREVIEW_CHARS + 4096);
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
    expect(largest(updates)).toBeLessThan(RAW_INPUT_PREVIEW_CHARS + 4096);
  });

  test("an edit whose diff is over the diff cap is shown as a note, and still applied", async () => {
    await using a = await startAgent({ files: { "f.txt": "marker\n" }, trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "edit", args: { file_path: "f.txt", old_string: "marker", new_string: "e".repeat(2 * 1024 * 1024) } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "big edit");
    expect(calls(updates).at(-1)?.status).toBe("completed");
    expect(JSON.stringify(calls(updates).at(-1)?.content)).toContain("not shown");
    expect(largest(updates)).toBeLessThan(RAW_INPUT_PREVIEW_CHARS + 4096);
    expect(Bun.file(join(a.workspace, "f.txt")).size).toBe(2 * 1024 * 1024 + 1);
  });
});
