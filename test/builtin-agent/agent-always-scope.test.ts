/**
 * `proceed_always` scope (hostile review finding 5): remembered per tool name, and for
 * run_shell_command per exact command line; never across MCP tools and shell.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAgent } from "./agent-client.ts";

const SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

const shell = (command: string) => ({ name: "run_shell_command", args: { command } });
const asked = (a: { permissionRequests: Array<{ toolCall: { title?: string | null } }> }) => a.permissionRequests.map((r) => r.toolCall.title);

describe("proceed_always scope", () => {
  test("always on an MCP tool approves that tool only: a later shell command and a different MCP tool still ask", async () => {
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [SERVER] } } }));
    await using a = await startAgent({ approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = (req) => ({ outcome: "selected", optionId: req.toolCall.title?.startsWith("test:") && req.toolCall.title !== "test: fail" ? "proceed_always" : "cancel" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "one" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "first");
    expect(a.permissionRequests[0]!.options.find((o) => o.optionId === "proceed_always")?.name).toBe("Always allow echo from MCP server test");
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "two" } }, shell("touch pwned"), { name: "mcp__test__fail", args: {} }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "second");
    expect(asked(a)).toEqual(["test: echo", "touch pwned", "test: fail"]);
    expect(existsSync(join(a.workspace, "pwned"))).toBe(false);
  });

  test("always on a shell command approves that exact command only, not other commands or MCP tools", async () => {
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [SERVER] } } }));
    await using a = await startAgent({ approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = (req) => ({ outcome: "selected", optionId: req.toolCall.title === "touch ok.txt" ? "proceed_always" : "cancel" });
    a.model.enqueue({ kind: "tools", calls: [shell("touch ok.txt")] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "first");
    a.model.enqueue({ kind: "tools", calls: [shell("touch ok.txt"), shell("touch pwned"), { name: "mcp__test__echo", args: { text: "x" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "second");
    expect(asked(a)).toEqual(["touch ok.txt", "touch pwned", "test: echo"]);
    expect(existsSync(join(a.workspace, "ok.txt"))).toBe(true);
    expect(existsSync(join(a.workspace, "pwned"))).toBe(false);
    expect(a.permissionRequests[0]!.options.find((o) => o.optionId === "proceed_always")?.name).toBe("Always allow this exact command");
  });
});
