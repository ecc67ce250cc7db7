/** Saved conversations: session/load replays them and session/resume continues them, in a new agent process. */
import { describe, expect, test } from "bun:test";
import { appendFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp-dir.ts";
import { rpcError, startAgent } from "./agent-client.ts";

const savedFile = (sessionId: string) => join(process.env.SVC_HOME!, "agent", "sessions", `${sessionId}.jsonl`);

/** Runs two turns (text, then a write_file call) in a first agent process, which then exits. */
async function firstLife(workspace: string): Promise<string> {
  await using a = await startAgent({ workspace, trusted: true, approvalMode: "yolo" });
  const { sessionId } = await a.newSession();
  await a.turn(sessionId, "first message");
  await a.turn(sessionId, `please write ${join(workspace, "w.txt")}`);
  return sessionId;
}

describe("persistence", () => {
  test("load in a new agent process replays the conversation as updates, and the next prompt carries it", async () => {
    await using ws = tempDir("svc-agent-ws-");
    const sessionId = await firstLife(ws.path);
    expect(statSync(savedFile(sessionId)).mode & 0o777).toBe(0o600);

    await using b = await startAgent({ workspace: ws.path });
    await b.agent.request("session/load", { sessionId, cwd: ws.path, mcpServers: [] });
    const replayed = await b.waitForUpdate(sessionId, (u) => u.sessionUpdate === "available_commands_update", "the end of the replay");
    expect(replayed).toBeDefined();
    const updates = b.updatesOf(sessionId).filter((u) => u.sessionUpdate !== "available_commands_update");
    expect(updates.map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk", "user_message_chunk", "tool_call", "agent_message_chunk"]);
    expect(updates[1]).toMatchObject({ content: { type: "text", text: "mock reply: first message" } });
    expect(updates[3]).toMatchObject({ sessionUpdate: "tool_call", status: "completed", title: "write_file", rawInput: { file_path: join(ws.path, "w.txt") } });

    await b.turn(sessionId, "and now?");
    const sent = b.model.requests.at(-1) as { messages: Array<{ role: string }> };
    expect(sent.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
  });

  test("resume continues the conversation without replaying it", async () => {
    await using ws = tempDir("svc-agent-ws-");
    const sessionId = await firstLife(ws.path);
    await using b = await startAgent({ workspace: ws.path });
    await b.agent.request("session/resume", { sessionId, cwd: ws.path, mcpServers: [] });
    await b.turn(sessionId, "still there?");
    expect(b.updatesOf(sessionId).some((u) => u.sessionUpdate === "user_message_chunk")).toBe(false);
    expect(JSON.stringify(b.model.requests.at(-1))).toContain("first message");
  });

  test("unknown, foreign, malformed and never-prompted session ids are -32002", async () => {
    await using ws = tempDir("svc-agent-ws-");
    const sessionId = await firstLife(ws.path);
    await using b = await startAgent();
    const load = (id: string, cwd = b.workspace) => rpcError(b.agent.request("session/load", { sessionId: id, cwd, mcpServers: [] }));
    expect((await load(sessionId)).code).toBe(-32002); // saved for another workspace
    expect((await load(crypto.randomUUID())).code).toBe(-32002);
    expect((await load("../../../etc/passwd")).code).toBe(-32002);
    const fresh = await b.newSession();
    await b.agent.request("session/close", { sessionId: fresh.sessionId });
    expect((await load(fresh.sessionId)).code).toBe(-32002);
  });

  test("a torn last line (a crash mid-write) is skipped", async () => {
    await using ws = tempDir("svc-agent-ws-");
    const sessionId = await firstLife(ws.path);
    appendFileSync(savedFile(sessionId), '{"role":"user","content":[{"ty');
    await using b = await startAgent({ workspace: ws.path });
    await b.agent.request("session/resume", { sessionId, cwd: ws.path, mcpServers: [] });
    const { response } = await b.turn(sessionId, "after the crash");
    expect(response.stopReason).toBe("end_turn");
  });
});
