/** The built-in agent's tools and approval modes, end to end over ACP against the mock model. */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { startAgent } from "./agent-client.ts";

const toolUpdates = (updates: acp.SessionUpdate[]) => updates.filter((u): u is acp.SessionUpdate & { sessionUpdate: "tool_call_update" } => u.sessionUpdate === "tool_call_update");
const finalStatus = (updates: acp.SessionUpdate[], id: string) => toolUpdates(updates).filter((u) => u.toolCallId === id && u.status).at(-1)?.status;
/** The ACP ids of the turn's tool calls, in the order the model made them (the agent mints its own). */
const callIds = (updates: acp.SessionUpdate[]) => updates.flatMap((u) => (u.sessionUpdate === "tool_call" ? [u.toolCallId] : []));
/** What the model was told for its tool calls, from the last request it got. */
const toolResults = (requests: unknown[]) =>
  ((requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("tools", () => {
  test("read_file returns the file; edit after a permission vote shows the diff and changes the file", async () => {
    await using a = await startAgent({ files: { "notes.txt": "alpha\nbeta\n" }, approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      { kind: "tools", calls: [{ name: "read_file", args: { file_path: "notes.txt" } }] },
      { kind: "tools", calls: [{ name: "edit", args: { file_path: "notes.txt", old_string: "beta", new_string: "gamma" } }] },
      { kind: "text", text: "done" },
    );
    const { response, updates } = await a.turn(sessionId, "change beta to gamma");
    expect(response.stopReason).toBe("end_turn");
    expect(readFileSync(join(a.workspace, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
    // read asks nothing; the edit asked once, with the diff.
    expect(a.permissionRequests).toHaveLength(1);
    const ask = a.permissionRequests[0]!;
    expect(ask.options.map((o) => o.optionId)).toEqual(["proceed_always", "proceed_once", "cancel"]);
    expect(ask.toolCall.content).toEqual([{ type: "diff", path: join(a.workspace, "notes.txt"), oldText: "alpha\nbeta\n", newText: "alpha\ngamma\n" }]);
    const [read, edit] = callIds(updates);
    expect(finalStatus(updates, read!)).toBe("completed");
    const done = toolUpdates(updates).find((u) => u.toolCallId === edit && u.status === "completed");
    expect(done?.content).toEqual([{ type: "diff", path: join(a.workspace, "notes.txt"), oldText: "alpha\nbeta\n", newText: "alpha\ngamma\n" }]);
    expect(toolResults(a.model.requests)[0]).toBe("alpha\nbeta\n");
  });

  test("a declined edit changes nothing and the model is told", async () => {
    await using a = await startAgent({ files: { "f.txt": "one\n" }, approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = () => ({ outcome: "selected", optionId: "cancel" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "f.txt", content: "two\n" } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "overwrite");
    expect(readFileSync(join(a.workspace, "f.txt"), "utf8")).toBe("one\n");
    expect(finalStatus(updates, callIds(updates)[0]!)).toBe("failed");
    expect(toolResults(a.model.requests)[0]).toContain("declined");
  });

  test("proceed_always is remembered for the session: the second edit does not ask", async () => {
    await using a = await startAgent({ approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = () => ({ outcome: "selected", optionId: "proceed_always" });
    a.model.enqueue(
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "a.txt", content: "a" } }] },
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "b.txt", content: "b" } }] },
      { kind: "text", text: "ok" },
    );
    await a.turn(sessionId, "write two files");
    expect(readFileSync(join(a.workspace, "b.txt"), "utf8")).toBe("b");
    expect(a.permissionRequests).toHaveLength(1);
  });

  test("an approval never lands on a file that changed while the question was open", async () => {
    await using a = await startAgent({ files: { "f.txt": "one\n" }, approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = () => {
      writeFileSync(join(a.workspace, "f.txt"), "someone else's one\n");
      return { outcome: "selected", optionId: "proceed_once" };
    };
    a.model.enqueue({ kind: "tools", calls: [{ name: "edit", args: { file_path: "f.txt", old_string: "one", new_string: "two" } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "edit");
    expect(readFileSync(join(a.workspace, "f.txt"), "utf8")).toBe("someone else's one\n");
    expect(finalStatus(updates, callIds(updates)[0]!)).toBe("failed");
    expect(toolResults(a.model.requests)[0]).toContain("re-read the file");
  });

  test("proceed_always does not outlast a switch to plan mode", async () => {
    await using a = await startAgent({ approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = () => ({ outcome: "selected", optionId: "proceed_always" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "a.txt", content: "a" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "write");
    await a.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "b.txt", content: "b" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "write again");
    expect(existsSync(join(a.workspace, "a.txt"))).toBe(true);
    expect(existsSync(join(a.workspace, "b.txt"))).toBe(false);
  });

  test("paths outside the workspace and through escaping symlinks are refused", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    symlinkSync("/etc", join(a.workspace, "out"));
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      { kind: "tools", calls: [{ name: "read_file", args: { file_path: "/etc/hostname" } }, { name: "read_file", args: { file_path: "../x" } }, { name: "read_file", args: { file_path: "out/hostname" } }, { name: "write_file", args: { file_path: "out/evil", content: "x" } }] },
      { kind: "text", text: "ok" },
    );
    const { updates } = await a.turn(sessionId, "escape");
    expect(callIds(updates)).toHaveLength(4);
    for (const id of callIds(updates)) expect(finalStatus(updates, id)).toBe("failed");
    const told = toolResults(a.model.requests).join("\n");
    expect(told).toContain("path is outside the workspace");
    expect(told).toContain("symbolic link");
    expect(existsSync("/etc/evil")).toBe(false);
  });

  test("list_directory, glob and grep find workspace files; ignored ones are left out", async () => {
    await using a = await startAgent({ files: { "main.ts": "const needle = 1;\n", "other.md": "no match\n", ".gitignore": "secret.ts\n", "secret.ts": "const needle = 2;\n" } });
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      { kind: "tools", calls: [{ name: "list_directory", args: { path: "." } }, { name: "glob", args: { pattern: "*.ts" } }, { name: "grep", args: { pattern: "needle\\s=" } }] },
      { kind: "text", text: "ok" },
    );
    await a.turn(sessionId, "look around");
    const [list, glob, grep] = toolResults(a.model.requests);
    expect(list).toContain("main.ts");
    expect(list).not.toContain("secret.ts");
    expect(glob).toBe("main.ts");
    expect(grep).toBe("main.ts:1: const needle = 1;");
  });

  test("bad arguments and unknown tools fail the call and tell the model", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "read_file", args: { file_path: 42 } }, { name: "launch_rockets", args: {} }, { name: "grep", args: { pattern: "(" } }] }, { kind: "text", text: "ok" });
    const { response } = await a.turn(sessionId, "go");
    expect(response.stopReason).toBe("end_turn");
    const told = toolResults(a.model.requests);
    expect(told[0]).toContain("file_path must be a string");
    expect(told[1]).toContain("unknown tool launch_rockets");
    expect(told[2]).toContain("not a valid regular expression");
  });

  test("todo_write publishes an ACP plan", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "todo_write", args: { todos: [{ content: "read", status: "completed" }, { content: "edit", status: "in_progress", priority: "high" }] } }] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "plan it");
    expect(updates.find((u) => u.sessionUpdate === "plan")).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "read", status: "completed", priority: "medium" },
        { content: "edit", status: "in_progress", priority: "high" },
      ],
    });
  });

  test("run_shell_command returns output and exit code; the output is capped and a timeout kills the command", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      { kind: "tools", calls: [{ name: "run_shell_command", args: { command: "echo hi; pwd; exit 3" } }, { name: "run_shell_command", args: { command: "head -c 200000 /dev/zero | tr '\\0' x" } }, { name: "run_shell_command", args: { command: "sleep 30", timeout_ms: 200 } }] },
      { kind: "text", text: "ok" },
    );
    await a.turn(sessionId, "run");
    const [first, big, slow] = toolResults(a.model.requests);
    expect(first).toBe(`hi\n${a.workspace}\n\n[exit code 3]`);
    expect(big!.length).toBeLessThan(20_000);
    expect(big!.endsWith(`[output cut: ${200_000 - 16 * 1024} more bytes not kept]\n[exit code 0]`)).toBe(true);
    expect(slow).toContain("killed after 200 ms timeout");
  });

  test("shell commands do not see the model's API key", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "echo key=[$OPENAI_API_KEY]" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "leak");
    expect(toolResults(a.model.requests)[0]).toStartWith("key=[]");
  });

  test.each(["022", "027", "077"])("files the agent creates follow its umask (%s); an edit keeps the file's mode", async (octal) => {
    const umask = Number.parseInt(octal, 8);
    // The agent inherits the umask of the process that starts it, as under a daemon started from a shell.
    const previous = process.umask(umask);
    let agent: Awaited<ReturnType<typeof startAgent>>;
    try {
      agent = await startAgent({ files: { "kept.txt": "one\n" }, approvalMode: "yolo" });
    } finally {
      process.umask(previous);
    }
    await using a = agent;
    chmodSync(join(a.workspace, "kept.txt"), 0o640);
    const { sessionId } = await a.newSession();
    a.model.enqueue(
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "sub/new.txt", content: "new\n" } }] },
      { kind: "tools", calls: [{ name: "edit", args: { file_path: "kept.txt", old_string: "one", new_string: "two" } }] },
      { kind: "text", text: "ok" },
    );
    expect((await a.turn(sessionId, "write and edit")).response.stopReason).toBe("end_turn");
    expect(statSync(join(a.workspace, "sub", "new.txt")).mode & 0o777).toBe(0o666 & ~umask);
    expect(statSync(join(a.workspace, "sub")).mode & 0o777).toBe(0o777 & ~umask);
    expect(readFileSync(join(a.workspace, "kept.txt"), "utf8")).toBe("two\n");
    expect(statSync(join(a.workspace, "kept.txt")).mode & 0o777).toBe(0o640);
  });
});

describe("approval modes", () => {
  const EDIT = { name: "write_file", args: { file_path: "w.txt", content: "w" } };
  const READ_ONLY_SHELL = { name: "run_shell_command", args: { command: "ls -la" } };
  const SHELL = { name: "run_shell_command", args: { command: "touch t.txt" } };

  /** Which of [edit, read-only shell, other shell] asked, and which ran, in `mode`. */
  async function probe(mode: "plan" | "default" | "auto-edit" | "auto" | "yolo") {
    await using a = await startAgent({ trusted: true, approvalMode: mode });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [EDIT, READ_ONLY_SHELL, SHELL] }, { kind: "text", text: "ok" });
    const { updates } = await a.turn(sessionId, "do things");
    const asked = a.permissionRequests.map((r) => r.toolCall.toolCallId);
    return {
      asked: callIds(updates).map((id) => asked.includes(id)),
      ran: callIds(updates).map((id) => finalStatus(updates, id) === "completed"),
      wrote: existsSync(join(a.workspace, "w.txt")),
      touched: existsSync(join(a.workspace, "t.txt")),
    };
  }

  test("plan refuses edits and shell without asking", async () => {
    expect(await probe("plan")).toEqual({ asked: [false, false, false], ran: [false, false, false], wrote: false, touched: false });
  });
  test("default asks before edits and every shell command", async () => {
    expect(await probe("default")).toEqual({ asked: [true, true, true], ran: [true, true, true], wrote: true, touched: true });
  });
  test("auto-edit edits without asking and asks before shell", async () => {
    expect(await probe("auto-edit")).toEqual({ asked: [false, true, true], ran: [true, true, true], wrote: true, touched: true });
  });
  test("auto (the default) runs read-only shell commands without asking and asks for the rest", async () => {
    expect(await probe("auto")).toEqual({ asked: [true, false, true], ran: [true, true, true], wrote: true, touched: true });
  });
  test("yolo never asks", async () => {
    expect(await probe("yolo")).toEqual({ asked: [false, false, false], ran: [true, true, true], wrote: true, touched: true });
  });

  test("an untrusted workspace is held to default whatever its settings ask; its edits ask first", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const session = await a.newSession();
    expect(session.modes?.currentModeId).toBe("default");
    const { rpcError } = await import("./agent-client.ts");
    for (const modeId of ["yolo", "auto-edit", "auto"]) expect((await rpcError(a.agent.request("session/set_mode", { sessionId: session.sessionId, modeId }))).code).toBe(-32602);
    a.onPermission = () => ({ outcome: "cancelled" });
    a.model.enqueue({ kind: "tools", calls: [EDIT] }, { kind: "text", text: "ok" });
    await a.turn(session.sessionId, "write");
    expect(a.permissionRequests).toHaveLength(1);
    expect(existsSync(join(a.workspace, "w.txt"))).toBe(false);
  });
});
