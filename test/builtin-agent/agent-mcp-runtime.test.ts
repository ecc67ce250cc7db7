/**
 * Runtime MCP servers in the built-in agent, at the ACP level: a restart and a runtime add of the
 * same name sent together run one after the other, so the server the add replaces is stopped, not
 * left running beside it (both used to act on the same entry at once).
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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("runtime MCP servers (built-in agent)", () => {
  test("a restart racing a runtime add of the same name leaves no replaced server running", async () => {
    await using dir = tempDir("svc-mcp-rt-");
    const pidFile = join(dir.path, "pids");
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [SERVER], env: { MCP_TEST_PID_FILE: pidFile } } } }));
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    await a.agent.request("svc/control/workspace/mcp/initialize", { cwd: a.workspace });
    const snapshot = () => a.agent.request<{ servers?: Array<{ name: string; mcpStatus: string }> }>("svc/status/workspace/mcp", { cwd: a.workspace });
    await until(async () => JSON.stringify(await snapshot()).includes('"connected"'), 10_000, "the declared server to connect");

    const [restart, added] = await Promise.all([
      a.agent.request<Record<string, unknown>>("svc/control/workspace/mcp/restart", { serverName: "test" }),
      a.agent.request<Record<string, unknown>>("svc/control/workspace/mcp/runtime-add", { cwd: a.workspace, name: "test", config: { command: process.execPath, args: [SERVER] }, originatorClientId: "c1" }),
    ]);
    expect(restart).toMatchObject({ serverName: "test", restarted: true });
    expect(added).toMatchObject({ name: "test", replaced: true, shadowedSettings: true });
    const declaredPids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    expect(declaredPids).toHaveLength(2);
    await until(() => declaredPids.every((pid) => !alive(pid)), 10_000, "every declared server process to end");
  });

  test("a remove during a failing replacement wins: the removed server does not come back", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    await a.agent.request("svc/control/workspace/mcp/initialize", { cwd: a.workspace });
    const add = (config: Record<string, unknown>) => a.agent.request<Record<string, unknown>>("svc/control/workspace/mcp/runtime-add", { cwd: a.workspace, name: "x", config, originatorClientId: "c1" });
    expect(await add({ command: process.execPath, args: [SERVER] })).toMatchObject({ name: "x", replaced: false });
    const snapshot = async () => JSON.stringify(await a.agent.request("svc/status/workspace/mcp", { cwd: a.workspace }));
    // A replacement that connects for a while, then dies: its add fails.
    const failing = add({ command: process.execPath, args: ["-e", "setTimeout(() => process.exit(1), 1500)"] }).then(
      () => "added",
      () => "failed",
    );
    await until(async () => (await snapshot()).includes('"connecting"'), 10_000, "the replacement to be connecting");
    expect(await a.agent.request("svc/control/workspace/mcp/runtime-remove", { cwd: a.workspace, name: "x", originatorClientId: "c1" })).toMatchObject({ removed: true });
    expect(await failing).toBe("failed");
    await a.agent.request("svc/control/workspace/mcp/reload", { cwd: a.workspace });
    await until(async () => (await snapshot()).includes('"discoveryState":"completed"'), 10_000, "the reload");
    expect(await snapshot()).not.toContain('"name":"x"');
  });

  test("a name the settings exclude stays excluded over a runtime server of that name", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    await a.agent.request("svc/control/workspace/mcp/initialize", { cwd: a.workspace });
    await a.agent.request("svc/control/workspace/mcp/runtime-add", { cwd: a.workspace, name: "x", config: { command: process.execPath, args: [SERVER] }, originatorClientId: "c1" });
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { x: { command: process.execPath, args: [SERVER] } }, mcp: { excluded: ["x"] } }));
    await a.agent.request("svc/control/workspace/mcp/reload", { cwd: a.workspace });
    const cells = async () => (await a.agent.request<{ servers: Array<{ name: string; disabled: boolean; mcpStatus: string }> }>("svc/status/workspace/mcp", { cwd: a.workspace })).servers;
    await until(async () => (await cells()).some((c) => c.name === "x" && c.disabled), 10_000, "x to be disabled");
    expect((await cells()).find((c) => c.name === "x")).toMatchObject({ disabled: true, mcpStatus: "disconnected" });
  });
});
