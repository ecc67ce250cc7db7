/**
 * The programs the built-in agent runs are the user's, not the repository's (issue 22, deliverable
 * 3): with a relative PATH entry (`bin`, as `node_modules/.bin` would be) or an absolute one inside
 * the workspace, a fake `rg` there that leaves a marker when run is never run, neither by grep (in
 * any mode, plan included) nor by a shell command. grep uses the first `rg` an absolute PATH entry
 * has: the host's (found past a relative entry) when it has one, else, and always when that first
 * one lies inside the workspace, its built-in engine.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { tempDir } from "../helpers/temp-dir.ts";
import { startAgent, type AgentHandle } from "./agent-client.ts";

/** A fake `rg` in `<workspace>/<dir>` that touches `<workspace>/<marker>` when run. */
function plantRg(workspace: string, dir: string, marker: string): void {
  mkdirSync(join(workspace, dir), { recursive: true });
  writeFileSync(join(workspace, dir, "rg"), `#!/bin/sh\ntouch '${join(workspace, marker)}'\nexit 0\n`);
  chmodSync(join(workspace, dir, "rg"), 0o755);
}

const grep = { name: "grep", args: { pattern: "needle" } };
const grepEngine = (a: AgentHandle, sessionId: string) =>
  a.updatesOf(sessionId).flatMap((u) => (u.sessionUpdate === "tool_call_update" && u.rawOutput ? [(u.rawOutput as { engine?: string }).engine] : []));
const toolResults = (a: AgentHandle) =>
  (a.model.requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("a repository's own rg on PATH", () => {
  // The engine grep should pick past a relative entry: the host's ripgrep, where this machine has one.
  const hostEngine = Bun.which("rg", { PATH: (process.env.PATH ?? "").split(":").filter((d) => isAbsolute(d)).join(":") }) ? "ripgrep" : "builtin";
  for (const [what, entry, engine] of [
    ["a relative PATH entry", () => "bin", hostEngine],
    ["an absolute PATH entry inside the workspace", (ws: string) => join(ws, "bin"), "builtin"],
  ] as const) {
    test(`through ${what}: grep never runs it, in plan or auto, and uses the ${engine} engine`, async () => {
      await using ws = tempDir("svc-agent-rg-");
      plantRg(ws.path, "bin", "rg-ran");
      writeFileSync(join(ws.path, "notes.txt"), "a needle here\n");
      await using a = await startAgent({ trusted: true, workspace: ws.path, extraEnv: { PATH: `${entry(ws.path)}:${process.env.PATH}` } });
      for (const mode of ["plan", "auto"]) {
        const { sessionId } = await a.newSession();
        await a.agent.request("session/set_mode", { sessionId, modeId: mode });
        a.model.enqueue({ kind: "tools", calls: [grep] }, { kind: "text", text: "ok" });
        await a.turn(sessionId, "search");
        expect(toolResults(a)).toEqual(["notes.txt:1: a needle here"]);
        expect(grepEngine(a, sessionId)).toEqual([engine]);
      }
      expect(existsSync(join(ws.path, "rg-ran"))).toBe(false);
      if (entry(ws.path) !== "bin") expect(a.stderr()).toContain("lies inside the workspace and is not run");
    });
  }

  test("a shell command naming rg does not find the repository's: auto asks for it, and approved it runs no workspace file", async () => {
    await using ws = tempDir("svc-agent-rg-");
    plantRg(ws.path, "bin", "rg-ran");
    writeFileSync(join(ws.path, "notes.txt"), "a needle here\n");
    // Only the relative entry and a folder without rg: the repository's rg is the only one there is.
    await using a = await startAgent({ trusted: true, workspace: ws.path, extraEnv: { PATH: "bin:/nonexistent-svc-dir" } });
    const { sessionId } = await a.newSession();
    await a.agent.request("session/set_mode", { sessionId, modeId: "auto" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "rg needle notes.txt" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "search");
    expect(a.permissionRequests.map((r) => r.toolCall.title)).toEqual(["rg needle notes.txt"]);
    expect(toolResults(a)[0]).toMatch(/not found[\s\S]*\[exit code 127\]$/);
    expect(existsSync(join(ws.path, "rg-ran"))).toBe(false);
  });

  test("an approved command finds the user's program, not one in an absolute PATH entry inside the workspace", async () => {
    await using ws = tempDir("svc-agent-rg-");
    mkdirSync(join(ws.path, "bin"));
    writeFileSync(join(ws.path, "bin", "ls"), `#!/bin/sh\ntouch '${join(ws.path, "ls-ran")}'\n`);
    chmodSync(join(ws.path, "bin", "ls"), 0o755);
    // As direnv's `PATH_add bin` would have it.
    await using a = await startAgent({ trusted: true, workspace: ws.path, extraEnv: { PATH: `${join(ws.path, "bin")}:${process.env.PATH}` } });
    const { sessionId } = await a.newSession();
    await a.agent.request("session/set_mode", { sessionId, modeId: "default" });
    a.onPermission = () => ({ outcome: "selected", optionId: "proceed_once" });
    a.model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "ls bin" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "list");
    expect(toolResults(a)[0]).toMatch(/^ls\n+\[exit code 0\]$/);
    expect(existsSync(join(ws.path, "ls-ran"))).toBe(false);
  });
});
