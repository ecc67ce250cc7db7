/**
 * The built-in agent's shell tool against a command deaf to SIGTERM: on a timeout or a cancel the
 * command's group gets SIGTERM, then SIGKILL after a short grace, so a command that traps TERM
 * does not run its full length (issue 22, deliverable 10).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expectPidsGone } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";
import { startAgent } from "./agent-client.ts";

/** How long the deaf command would run if nothing killed it. */
const FULL_LENGTH_S = 12;
/** It ignores SIGTERM (the sleep inherits the ignore), writes its shell's pid, then runs its full length. */
const DEAF_COMMAND = `trap '' TERM; echo $$ > pid; sleep ${FULL_LENGTH_S}; echo survived`;

/** What the model was told for its tool calls, from the last request it got. */
const toolResults = (requests: unknown[]) =>
  ((requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

const shellPid = (workspace: string) =>
  until(() => {
    try {
      return Number(readFileSync(join(workspace, "pid"), "utf8").trim()) || null;
    } catch {
      return null;
    }
  }, 10_000, "the command to start");

describe("a shell command that ignores SIGTERM", () => {
  test("is killed after the grace when its timeout passes, long before its full length", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: DEAF_COMMAND, timeout_ms: 500 } }] }, { kind: "text", text: "ok" });
    const started = performance.now();
    const turn = a.turn(sessionId, "run it");
    const pid = await shellPid(a.workspace);
    await expectPidsGone([pid], (FULL_LENGTH_S * 1000) / 2, "the deaf shell");
    await turn;
    expect(performance.now() - started).toBeLessThan((FULL_LENGTH_S * 1000) / 2);
    const [result] = toolResults(a.model.requests);
    expect(result).toContain("killed after 500 ms timeout");
    expect(result).not.toContain("survived");
  }, 30_000);

  test("is killed after the grace when the turn is cancelled", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "yolo" } } });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: DEAF_COMMAND } }] });
    const turn = a.prompt(sessionId, "run it");
    const pid = await shellPid(a.workspace);
    const cancelledAt = performance.now();
    await a.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await expectPidsGone([pid], (FULL_LENGTH_S * 1000) / 2, "the deaf shell");
    expect(performance.now() - cancelledAt).toBeLessThan((FULL_LENGTH_S * 1000) / 2);
  }, 30_000);
});
