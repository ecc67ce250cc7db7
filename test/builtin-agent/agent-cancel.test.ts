/** Cancelling a turn of the built-in agent: the model stream and any running command stop, nothing is left behind. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expectPidsGone } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";
import { startAgent } from "./agent-client.ts";

/** A command that records its shell's pid and a background child's pid, then waits on both. */
const LONG_COMMAND = "sleep 300 & echo $! > pids; echo $$ >> pids; wait";

const pidsIn = (workspace: string) =>
  readFileSync(join(workspace, "pids"), "utf8")
    .trim()
    .split("\n")
    .map(Number);

describe("cancel", () => {
  test("during a model stream: the turn ends cancelled and the stream is closed", async () => {
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "hang", text: "thinking..." });
    const turn = a.prompt(sessionId, "hi");
    await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text === "thinking...", "the first chunk");
    expect(a.model.hangingStreams()).toBe(1);
    await a.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await until(() => a.model.hangingStreams() === 0, 5000, "the model stream to close");
    // The next prompt works.
    const { response } = await a.turn(sessionId, "next");
    expect(response.stopReason).toBe("end_turn");
  });

  test("during a long shell command: the command and what it started are killed, the turn ends cancelled", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: LONG_COMMAND } }] });
    const turn = a.prompt(sessionId, "run it");
    const pids = await until(() => {
      try {
        const found = pidsIn(a.workspace);
        return found.length === 2 ? found : null;
      } catch {
        return null;
      }
    }, 10_000, "the command to start");
    await a.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await expectPidsGone(pids, 5000, "shell processes");
    const done = await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "tool_call_update" && u.status === "failed", "the failed tool call");
    expect(done.sessionUpdate).toBe("tool_call_update");
  });

  test("a cancelled permission ask runs nothing", async () => {
    await using a = await startAgent({ approvalMode: "default" });
    const { sessionId } = await a.newSession();
    let answer!: (o: { outcome: "cancelled" }) => void;
    a.onPermission = () => new Promise((resolve) => (answer = resolve));
    a.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "x.txt", content: "x" } }] });
    const turn = a.prompt(sessionId, "write");
    await until(() => a.permissionRequests.length === 1, 5000, "the permission ask");
    await a.agent.notify("session/cancel", { sessionId });
    answer({ outcome: "cancelled" });
    expect((await turn).stopReason).toBe("cancelled");
    expect(() => readFileSync(join(a.workspace, "x.txt"))).toThrow();
  });

  for (const [how, stop] of [
    ["its stdin closes", (a: Awaited<ReturnType<typeof startAgent>>) => void a.proc.stdin.end()],
    ["it gets SIGTERM", (a: Awaited<ReturnType<typeof startAgent>>) => a.proc.kill("SIGTERM")],
  ] as const)
    test(`when the agent stops mid-command (${how}), the command's process group dies with it`, async () => {
      const a = await startAgent({ trusted: true, approvalMode: "yolo" });
      try {
        const { sessionId } = await a.newSession();
        a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: LONG_COMMAND } }] });
        void a.prompt(sessionId, "run it").catch(() => {});
        const pids = await until(() => {
          try {
            const found = pidsIn(a.workspace);
            return found.length === 2 ? found : null;
          } catch {
            return null;
          }
        }, 10_000, "the command to start");
        stop(a);
        await a.proc.exited;
        await expectPidsGone(pids, 5000, "shell processes");
      } finally {
        await a[Symbol.asyncDispose]();
      }
    });
});
