/**
 * An MCP server that dies after connecting (hostile review finding 8) is marked disconnected at
 * once, its tools are no longer offered, and it is connected again on the next prompt.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { startAgent } from "./agent-client.ts";

const SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

type Snapshot = { cells?: Array<{ kind: string; name?: string; mcpStatus?: string }> };
const offered = (request: unknown) => (request as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);

describe("MCP server death", () => {
  test("a killed server shows disconnected, its tools leave the tool list, and the next prompt reconnects it", async () => {
    await using dir = tempDir("svc-mcp-drop-");
    const pidFile = join(dir.path, "pids");
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [SERVER], env: { MCP_TEST_PID_FILE: pidFile } } } }));
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "one" } }] });
    await a.turn(sessionId, "first");
    const [pid] = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    process.kill(pid!, "SIGKILL");

    const status = async () => {
      const snap = await a.agent.request<Snapshot & Record<string, unknown>>("svc/status/workspace/mcp", { cwd: a.workspace });
      return JSON.stringify(snap);
    };
    await until(async () => (await status()).includes('"mcpStatus":"disconnected"'), 10_000, "the server to show disconnected");
    const tools = await a.agent.request<{ tools: Array<{ name: string }> }>("svc/status/workspace/tools", { cwd: a.workspace });
    expect(tools.tools.map((t) => t.name)).not.toContain("mcp__test__echo");

    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "two" } }] });
    await a.turn(sessionId, "second");
    expect(offered(a.model.requests.at(-2))).toContain("mcp__test__echo");
    const told = (a.model.requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(told.at(-1)).toBe("echo: two");
    expect(await status()).toContain('"mcpStatus":"connected"');
  });
});
