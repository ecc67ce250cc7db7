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
});
