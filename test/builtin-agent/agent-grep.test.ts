/**
 * grep never runs the model's pattern on the agent's event loop: a catastrophically backtracking
 * pattern leaves the other sessions served, and the grep ends with a clear error or a result.
 * Both engines: the built-in one (PATH without rg) always; ripgrep when a binary is at hand (on the
 * PATH, or the copy the interop install of the reference agent ships), else that part is skipped.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { startAgent } from "./agent-client.ts";

const INTEROP_RG = join(import.meta.dir, "..", "..", ".interop", "node_modules", "@qwen-code", "qwen-code", "vendor", "ripgrep", `${process.arch}-${process.platform}`, "rg");
const ripgrepSource = Bun.which("rg") ?? (existsSync(INTEROP_RG) ? INTEROP_RG : null);

/** A PATH holding only ripgrep (a copy made executable), or nothing at all. */
function pathDir(withRipgrep: boolean) {
  const dir = tempDir("svc-grep-path-");
  if (withRipgrep) {
    copyFileSync(ripgrepSource!, join(dir.path, "rg"));
    chmodSync(join(dir.path, "rg"), 0o755);
  }
  return dir;
}

/** 60 lines on which `(a|aa)+$` backtracks for a long time each (in JavaScript's engine). */
const EVIL_LINES = `${"a".repeat(36)}b\n`.repeat(60);

type ToolUpdate = acp.SessionUpdate & { sessionUpdate: "tool_call_update" };
const ended = (updates: acp.SessionUpdate[]) =>
  updates.find((u): u is ToolUpdate => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"));
/** What the model was told for its tool calls, from the last request that carried tool results (the other session's requests interleave). */
const toolResults = (requests: unknown[]) =>
  (requests as Array<{ messages?: Array<{ role: string; content: string }> }>)
    .map((r) => (r.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content))
    .filter((told) => told.length > 0)
    .at(-1) ?? [];

for (const engine of ["builtin", "ripgrep"] as const) {
  describe.skipIf(engine === "ripgrep" && ripgrepSource === null)(`grep (${engine} engine)`, () => {
    test("a catastrophic pattern does not stall the agent: another session's prompt completes meanwhile, and the grep ends", async () => {
      await using path = pathDir(engine === "ripgrep");
      await using a = await startAgent({ files: { "evil.txt": EVIL_LINES }, extraEnv: { PATH: path.path } });
      const slow = await a.newSession();
      const other = await a.newSession();
      a.model.enqueue({ kind: "tools", calls: [{ name: "grep", args: { pattern: "(a|aa)+$" } }] });
      const grepTurn = a.turn(slow.sessionId, "search");
      await a.waitForUpdate(slow.sessionId, (u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress", "the grep to start");

      const { response } = await a.turn(other.sessionId, "are you there?");
      expect(response.stopReason).toBe("end_turn");
      expect(a.agentText(other.sessionId)).toContain("mock reply: are you there?");
      // The JavaScript engine is still matching (it needs far longer than its budget): the other turn did not wait for it.
      if (engine === "builtin") expect(ended(a.updatesOf(slow.sessionId))).toBeUndefined();

      const done = (await grepTurn).updates;
      const result = ended(done)!;
      expect(result.rawOutput === undefined || (result.rawOutput as { engine: string }).engine === engine).toBe(true);
      const told = toolResults(a.model.requests)[0]!;
      // Either the search finished (ripgrep's linear engine: no line ends with a's) or it was stopped, saying why.
      if (engine === "ripgrep" && result.status === "completed") expect(told).toBe("(no matches)");
      else expect(told).toContain("the pattern took longer than 10 s to match");
    });

    test("matches are found; ignored files, binary files and links out of the workspace are left out; the engine is the one expected", async () => {
      await using path = pathDir(engine === "ripgrep");
      await using a = await startAgent({
        files: { "main.ts": "const needle = 1;\n", ".gitignore": "secret.ts\n", "secret.ts": "const needle = 2;\n", "bin.dat": "needle\0\n" },
        extraEnv: { PATH: path.path },
      });
      await using outside = tempDir("svc-grep-outside-");
      writeFileSync(join(outside.path, "secret.txt"), "const needle = 3;\n");
      symlinkSync(join(outside.path, "secret.txt"), join(a.workspace, "link.ts"));
      symlinkSync(outside.path, join(a.workspace, "linkdir"));
      const { sessionId } = await a.newSession();
      a.model.enqueue({ kind: "tools", calls: [{ name: "grep", args: { pattern: "needle\\s=" } }, { name: "grep", args: { pattern: "needle" } }] });
      const { updates } = await a.turn(sessionId, "search");
      const [first, second] = toolResults(a.model.requests);
      expect(first).toBe("main.ts:1: const needle = 1;");
      expect(second).toBe("main.ts:1: const needle = 1;");
      const raw = updates.filter((u): u is ToolUpdate => u.sessionUpdate === "tool_call_update" && u.status === "completed").map((u) => u.rawOutput);
      expect(raw).toEqual([{ matches: 1, engine }, { matches: 1, engine }]);
    });

    test("a file's final newline ends its last line: ^$ matches only the real empty line", async () => {
      await using path = pathDir(engine === "ripgrep");
      await using a = await startAgent({ files: { "x.txt": "hello\n\nworld\n" }, extraEnv: { PATH: path.path } });
      const { sessionId } = await a.newSession();
      a.model.enqueue({ kind: "tools", calls: [{ name: "grep", args: { pattern: "^$" } }] });
      await a.turn(sessionId, "search");
      expect(toolResults(a.model.requests)[0]).toBe("x.txt:2: ");
    });

    test("cancel stops a running search and ends the turn cancelled", async () => {
      await using path = pathDir(engine === "ripgrep");
      await using a = await startAgent({ files: { "evil.txt": EVIL_LINES }, extraEnv: { PATH: path.path } });
      const { sessionId } = await a.newSession();
      a.model.enqueue({ kind: "tools", calls: [{ name: "grep", args: { pattern: "(a|aa)+$" } }] });
      const turn = a.prompt(sessionId, "search");
      await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress", "the grep to start");
      await a.agent.notify("session/cancel", { sessionId });
      const response = await turn;
      // ripgrep may already have finished: then the turn ends normally.
      expect(["cancelled", "end_turn"]).toContain(response.stopReason);
      await until(() => ended(a.updatesOf(sessionId)), 5000, "the grep call to end");
    });
  });
}
