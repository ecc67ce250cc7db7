/**
 * No orphans (hostile review finding 7): what a shell command detached (setsid, nohup, double
 * forks) ends with the command, after a finished turn and after a cancel; so does what a hung MCP
 * server started, when its discovery times out.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { startAgent } from "./agent-client.ts";

const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

const pidIn = (file: string) => Number(readFileSync(file, "utf8").trim());

describe("no orphans", () => {
  test("a setsid process started by a command is gone once the turn ends", async () => {
    await using a = await startAgent({
      files: { "spawn.sh": "setsid sh -c 'echo $$ > detached.pid; exec sleep 600' </dev/null >/dev/null 2>&1 &\nwhile [ ! -s detached.pid ]; do sleep 0.05; done\necho bye\n" },
      trusted: true, approvalMode: "yolo",
    });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "spawn");
    await expectPidsGone([pidIn(join(a.workspace, "detached.pid"))], 5000, "the setsid sleep");
  });

  test("nohup and double-forked setsid processes are gone after a cancel", async () => {
    const script = [
      "nohup sh -c 'echo $$ > nohup.pid; exec sleep 600' >/dev/null 2>&1 &",
      `(sh -c 'setsid sh -c "echo \\$\\$ > setsid.pid; exec sleep 600" </dev/null >/dev/null 2>&1 &')`,
      "sleep 600",
    ].join("\n");
    await using a = await startAgent({ files: { "spawn.sh": `${script}\n` }, trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] }, { kind: "text", text: "ok" });
    const turn = a.prompt(sessionId, "spawn");
    const files = ["nohup.pid", "setsid.pid"].map((f) => join(a.workspace, f));
    await until(() => files.every((f) => existsSync(f) && readFileSync(f, "utf8").trim() !== ""), 10_000, "both detached processes to start");
    const pids = files.map(pidIn);
    expect(pids.every(pidAlive)).toBe(true);
    await a.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await expectPidsGone(pids, 5000, "the detached sleeps");
  });

  test("an MCP server that ignores SIGTERM and hangs at startup leaves nothing behind when its discovery times out", async () => {
    await using dir = tempDir("svc-mcp-hung-");
    const pidFile = join(dir.path, "pids");
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { hung: { command: "/bin/sh", args: ["-c", `trap '' TERM HUP INT; echo $$ >> ${pidFile}; sleep 600 & echo $! >> ${pidFile}; wait`] } } }));
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    await a.turn(sessionId, "hi");
    await until(() => a.stderr().includes("MCP server hung is unavailable"), 5000, "the discovery failure");
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    expect(pids).toHaveLength(2);
    await expectPidsGone(pids, 5000, "the hung server and its sleep");
  }, 40_000);
});
