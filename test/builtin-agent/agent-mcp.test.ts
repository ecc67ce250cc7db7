/** MCP servers declared in the host's settings: their tools offered to the model, called under the approval modes. */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMcpHttpServer } from "../fixtures/mcp-test-tools.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { startAgent } from "./agent-client.ts";

const SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const hostSettings = join(process.env.SVC_HOME!, "settings.json");
const dirs: TempDir[] = [];

/** Declares MCP servers in $SVC_HOME/settings.json (read by the agent at its start). */
function declare(servers: Record<string, unknown>): void {
  writeFileSync(hostSettings, JSON.stringify({ mcpServers: servers }));
}

/** A file path in a temp dir removed after the test. */
function scratchFile(name: string): string {
  const dir = tempDir("svc-mcp-");
  dirs.push(dir);
  return join(dir.path, name);
}

afterEach(async () => {
  rmSync(hostSettings, { force: true });
  for (const d of dirs.splice(0)) await d[Symbol.asyncDispose]();
});

const toolResults = (requests: unknown[]) =>
  ((requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("MCP servers", () => {
  test("a stdio server's tools are offered to the model and called; its errors reach the model", async () => {
    const pidFile = scratchFile("pids");
    declare({ test: { command: process.execPath, args: [SERVER], env: { MCP_TEST_PID_FILE: pidFile } } });
    const a = await startAgent({ trusted: true, approvalMode: "yolo" });
    try {
      const { sessionId } = await a.newSession();
      a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "hi" } }, { name: "mcp__test__fail", args: {} }] }, { kind: "text", text: "ok" });
      await a.turn(sessionId, "use mcp");
      const offered = (a.model.requests[0] as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);
      expect(offered).toContain("mcp__test__echo");
      expect(offered).toContain("read_file");
      const [echo, fail] = toolResults(a.model.requests);
      expect(echo).toBe("echo: hi");
      expect(fail).toContain("deliberate failure");
      const preflight = await a.agent.request<{ cells: Array<{ kind: string; status: string }> }>("svc/status/workspace/preflight", { cwd: a.workspace });
      expect(preflight.cells.find((c) => c.kind === "mcp_discovery")?.status).toBe("ok");
      const listed = await a.agent.request<{ tools: Array<{ name: string }> }>("svc/status/workspace/tools", { cwd: a.workspace });
      expect(listed.tools.map((t) => t.name)).toContain("mcp__test__echo");
    } finally {
      await a[Symbol.asyncDispose]();
    }
    // The server went with the agent.
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    await expectPidsGone(pids, 5000, "MCP servers");
  });

  test("a streamable HTTP server's tools are called", async () => {
    await using http = await startMcpHttpServer();
    declare({ remote: { url: http.url } });
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__remote__echo", args: { text: "over http" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "use remote mcp");
    expect(toolResults(a.model.requests)[0]).toBe("echo: over http");
  });

  test("MCP tools ask in default mode and are refused in plan mode", async () => {
    declare({ test: { command: process.execPath, args: [SERVER] } });
    await using a = await startAgent({ approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "asked" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "ask first");
    expect(a.permissionRequests).toHaveLength(1);
    expect(toolResults(a.model.requests)[0]).toBe("echo: asked");
    await a.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "refused" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "in plan");
    expect(toolResults(a.model.requests).at(-1)).toContain("not available in plan mode");
  });

  test("a server that cannot start is reported and the other tools still work", async () => {
    declare({ broken: { command: "/nonexistent/mcp-server" }, relative: { command: "mcp-server-from-path" } });
    await using a = await startAgent({ files: { "f.txt": "content\n" } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "read_file", args: { file_path: "f.txt" } }] }, { kind: "text", text: "ok" });
    const { response } = await a.turn(sessionId, "read");
    expect(response.stopReason).toBe("end_turn");
    expect(toolResults(a.model.requests)[0]).toBe("content\n");
    await until(() => a.stderr().includes("MCP server broken is unavailable"), 5000, "the MCP warning");
    expect(a.stderr()).toContain("mcpServers.relative needs an absolute");
    const preflight = await a.agent.request<{ cells: Array<{ kind: string; status: string }> }>("svc/status/workspace/preflight", { cwd: a.workspace });
    expect(preflight.cells.find((c) => c.kind === "mcp_discovery")?.status).toBe("warning");
  });
});

describe("MCP client budget", () => {
  const TWO = () => ({ first: { command: process.execPath, args: [SERVER] }, second: { command: process.execPath, args: [SERVER] } });
  const offeredTools = (requests: unknown[]) => (requests[0] as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name).filter((n) => n.startsWith("mcp__"));

  test("enforce refuses servers past the budget, in declaration order", async () => {
    declare(TWO());
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "1" } });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hi");
    expect(offeredTools(a.model.requests)).toEqual(["mcp__first__echo", "mcp__first__fail"]);
    const preflight = await a.agent.request<{ cells: Array<{ kind: string; detail?: { servers: Array<{ name: string; errorKind?: string }> } }> }>("svc/status/workspace/preflight", { cwd: a.workspace });
    const cell = preflight.cells.find((c) => c.kind === "mcp_discovery")!;
    expect(cell.detail!.servers.find((s) => s.name === "second")?.errorKind).toBe("budget_exhausted");
  });

  test("warn connects them anyway and says so", async () => {
    declare(TWO());
    await using a = await startAgent({ extraEnv: { SVC_SERVE_MCP_CLIENT_BUDGET: "1", SVC_SERVE_MCP_BUDGET_MODE: "warn" } });
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hi");
    expect(offeredTools(a.model.requests)).toHaveLength(4);
    await until(() => a.stderr().includes("exceeds the client budget of 1"), 5000, "the budget warning");
  });
});
