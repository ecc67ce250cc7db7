/**
 * No orphans (hostile review finding 7): what a shell command detached (setsid, nohup, double
 * forks, and with a cleared environment `env -i setsid`, which carries no marker) ends with the
 * command, after a finished turn, after a cancel and when its session is closed; so does what a
 * hung MCP server started, when its discovery times out.
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

/**
 * Processes that leave the command's session with a cleared environment: one whose parent (the
 * command's shell) exits, and one whose parent exits at once (a double fork), so that nothing but
 * the agent's subreaping ties either to the command. Each writes its pid to `<name>.pid`.
 */
const CLEARED = [
  "env -i setsid sh -c 'echo $$ > cleared.pid; exec sleep 600' </dev/null >/dev/null 2>&1 &",
  "env -i setsid sh -c 'sleep 600 & echo $! > forked.pid' </dev/null >/dev/null 2>&1 &",
  "while [ ! -s cleared.pid ] || [ ! -s forked.pid ]; do sleep 0.05; done",
].join("\n");
/** A process's kernel start time, in clock ticks since boot (`/proc/<pid>/stat` field 22). */
const startTicks = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]!.split(" ")[19]);
const clearedPids = (workspace: string) => ["cleared.pid", "forked.pid"].map((f) => pidIn(join(workspace, f)));

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

  test("env -i setsid processes, with their parent alive or gone, are gone once the turn ends, reaped by the agent that adopted them", async () => {
    await using a = await startAgent({ files: { "spawn.sh": `${CLEARED}\necho bye\n` }, workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "spawn");
    const pids = clearedPids(a.workspace);
    await expectPidsGone(pids, 5000, "the env -i processes");
    // Not left as zombies of the agent either.
    await until(() => pids.every((pid) => !existsSync(`/proc/${pid}`)), 5000, "the agent to reap them");
  });

  test("another session's command ending leaves alone a detached process of a command that started before it and still runs", async () => {
    await using a = await startAgent({ files: { "spawn.sh": `${CLEARED}\nsleep 600\n` }, workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const first = (await a.newSession()).sessionId;
    const second = (await a.newSession()).sessionId;
    // Tool calls only: after a tool result the mock model answers with text by itself.
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] });
    const turn = a.prompt(first, "spawn");
    const files = ["cleared.pid", "forked.pid"].map((f) => join(a.workspace, f));
    await until(() => files.every((f) => existsSync(f) && readFileSync(f, "utf8").trim() !== ""), 10_000, "both detached processes to start");
    const pids = clearedPids(a.workspace);
    // An orphan is told apart by its start time, in clock ticks (USER_HZ, 100 a second): one started
    // in the same tick as a command could be that command's. The second command starts a tick later.
    const started = Math.max(...pids.map(startTicks));
    const nowTicks = () => Number(Bun.spawnSync(["/usr/bin/cut", "-d", " ", "-f22", "/proc/self/stat"]).stdout.toString());
    await until(() => nowTicks() > started, 5000, "the next clock tick");
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "echo quick > quick.txt" } }] });
    await a.turn(second, "quick");
    expect(readFileSync(join(a.workspace, "quick.txt"), "utf8")).toBe("quick\n");
    expect(pids.filter(pidAlive)).toEqual(pids);
    await a.agent.notify("session/cancel", { sessionId: first });
    expect((await turn).stopReason).toBe("cancelled");
    await expectPidsGone(pids, 5000, "the env -i processes");
  });

  test("a command's end leaves alone a detached process that carries another command's marker", async () => {
    const spawn = "setsid sh -c 'sleep 600 & echo $! > marked.pid' </dev/null >/dev/null 2>&1\nsleep 600\n";
    await using a = await startAgent({ files: { "spawn.sh": spawn }, workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const early = (await a.newSession()).sessionId;
    const late = (await a.newSession()).sessionId;
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "echo > early.txt; sleep 600" } }] });
    const earlyTurn = a.prompt(early, "wait");
    await until(() => existsSync(join(a.workspace, "early.txt")), 10_000, "the early command to start");
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] });
    const lateTurn = a.prompt(late, "spawn");
    const file = join(a.workspace, "marked.pid");
    await until(() => existsSync(file) && readFileSync(file, "utf8").trim() !== "", 10_000, "the detached process to start");
    const pid = pidIn(file);
    // It started after the early command, but its marker says it is the late one's.
    await a.agent.notify("session/cancel", { sessionId: early });
    expect((await earlyTurn).stopReason).toBe("cancelled");
    expect(pidAlive(pid)).toBe(true);
    await a.agent.notify("session/cancel", { sessionId: late });
    expect((await lateTurn).stopReason).toBe("cancelled");
    await expectPidsGone([pid], 5000, "the detached process");
  });

  test.each(["cancel", "close"] as const)("env -i setsid processes of a running command are gone after a session/%s, and the agent stays up", async (how) => {
    await using a = await startAgent({ files: { "spawn.sh": `${CLEARED}\nsleep 600\n` }, workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] }, { kind: "text", text: "ok" });
    const turn = a.prompt(sessionId, "spawn");
    const files = ["cleared.pid", "forked.pid"].map((f) => join(a.workspace, f));
    await until(() => files.every((f) => existsSync(f) && readFileSync(f, "utf8").trim() !== ""), 10_000, "both detached processes to start");
    const pids = clearedPids(a.workspace);
    expect(pids.every(pidAlive)).toBe(true);
    if (how === "cancel") await a.agent.notify("session/cancel", { sessionId });
    else await a.agent.request("session/close", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await expectPidsGone(pids, 5000, "the env -i processes");
    expect(pidAlive(a.proc.pid)).toBe(true);
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
