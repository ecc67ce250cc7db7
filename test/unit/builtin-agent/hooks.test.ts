/**
 * Hooks on their own: reading them from settings (and what is refused), the tool matcher, a run's
 * verdict (exit codes, JSON decisions) and the merge of several, and the listing's cells.
 */
import { describe, expect, test } from "bun:test";
import { hooksOf, hooksSettings, matchesTool, parseHookDefinition } from "../../../src/config/hooks-config.ts";
import { mergeVerdicts, verdictOf, type HookRun } from "../../../src/builtin-agent/hooks/hook-decision.ts";
import { withHookPermission } from "../../../src/builtin-agent/hooks/tool-hooks.ts";

const run = (fields: Partial<HookRun>): HookRun => ({ exitCode: 0, stdout: "", stderr: "", timedOut: false, cancelled: false, ...fields });

describe("settings", () => {
  test("the reference's shape is read; bad entries are warned about and ignored", () => {
    const warnings: string[] = [];
    const hooks = hooksOf(
      "s.json",
      {
        hooks: {
          PreToolUse: [{ matcher: "write_file|edit", hooks: [{ type: "command", command: "guard", timeout: 5, name: "g" }, { type: "http", url: "x" }, { command: "" }] }],
          UserPromptSubmit: [{ matcher: "ignored", hooks: [{ command: "ctx" }] }],
          Nope: [{ hooks: [{ command: "x" }] }],
          SessionEnd: [{ hooks: [{ command: "x", timeout: 601 }] }],
        },
      },
      "project",
      warnings,
    );
    expect(hooks.map((h) => [h.event, h.matcher, h.command, h.timeoutSeconds, h.source])).toEqual([
      ["PreToolUse", "write_file|edit", "guard", 5, "project"],
      ["UserPromptSubmit", null, "ctx", 60, "project"],
    ]);
    expect(warnings).toHaveLength(4);
  });

  test("at most 64 hooks per file; disableAllHooks in either file turns all off", () => {
    const warnings: string[] = [];
    const many = { hooks: { SessionEnd: [{ hooks: Array.from({ length: 70 }, (_, i) => ({ command: `c${i}` })) }] } };
    expect(hooksOf("s.json", many, "user", warnings)).toHaveLength(64);
    expect(warnings).toHaveLength(6);
    expect(hooksSettings({ host: {}, hostFile: "h", local: { disableAllHooks: true }, workspaceFile: "w" }, []).disabled).toBe(true);
    expect(hooksSettings({ host: {}, hostFile: "h", local: {}, workspaceFile: "w" }, []).disabled).toBe(false);
  });

  test("a session hook's definition is checked like a file's", () => {
    expect(parseHookDefinition({ event: "PreToolUse", hook: { command: "x".repeat(16 * 1024 + 1) } }, "session", "i")).toContain("longer than");
    expect(parseHookDefinition({ event: "PreToolUse", matcher: 3, hook: { command: "x" } }, "session", "i")).toContain("matcher");
    expect(parseHookDefinition({ event: "PreToolUse", hook: { command: "x", timeout: 1.5 } }, "session", "i")).toContain("timeout");
  });
});

describe("matcher", () => {
  test("names separated by |, * a wildcard, absent for every tool", () => {
    expect(matchesTool(null, "anything")).toBe(true);
    expect(matchesTool("write_file|edit", "edit")).toBe(true);
    expect(matchesTool("write_file|edit", "edits")).toBe(false);
    expect(matchesTool("mcp__*", "mcp__gh__issue")).toBe(true);
    expect(matchesTool("*_file", "read_file")).toBe(true);
    expect(matchesTool("*_file", "read_files")).toBe(false);
    expect(matchesTool("w.*", "write")).toBe(false);
  });

  test("a hostile pattern is quick (no regular expression backtracking)", () => {
    const started = performance.now();
    expect(matchesTool(`${"*a".repeat(250)}b`, "a".repeat(128))).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe("verdicts", () => {
  test("exit code 2 blocks with stderr as the reason; other failures decide nothing", () => {
    expect(verdictOf("PreToolUse", run({ exitCode: 2, stderr: " frozen \n", stdout: '{"decision":"approve"}' }))).toEqual({ outcome: "blocking", block: true, reason: "frozen" });
    expect(verdictOf("PreToolUse", run({ exitCode: 1, stderr: "boom" }))).toEqual({ outcome: "non_blocking_error", block: false });
    expect(verdictOf("PreToolUse", run({ exitCode: null, timedOut: true }))).toEqual({ outcome: "timeout", block: false });
    expect(verdictOf("PreToolUse", run({ exitCode: null, cancelled: true }))).toEqual({ outcome: "cancelled", block: false });
  });

  test("JSON on stdout: block, deny, allow, updated input, context, continue false", () => {
    expect(verdictOf("PreToolUse", run({ stdout: '{"decision":"block","reason":"no"}' }))).toMatchObject({ block: true, reason: "no" });
    expect(verdictOf("PreToolUse", run({ stdout: '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"r"}}' }))).toMatchObject({ block: true, permission: "deny", reason: "r" });
    expect(verdictOf("PreToolUse", run({ stdout: '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"a":1}}}' }))).toEqual({ outcome: "success", block: false, permission: "allow", updatedInput: { a: 1 } });
    expect(verdictOf("UserPromptSubmit", run({ stdout: '{"continue":false,"stopReason":"later"}' }))).toMatchObject({ stop: true, reason: "later" });
    expect(verdictOf("PreToolUse", run({ stdout: "{not json" }))).toEqual({ outcome: "success", block: false });
  });

  test("plain stdout is context at prompt submit and session start only", () => {
    expect(verdictOf("UserPromptSubmit", run({ stdout: "branch main\n" }))).toEqual({ outcome: "success", block: false, additionalContext: "branch main" });
    expect(verdictOf("PreToolUse", run({ stdout: "branch main\n" }))).toEqual({ outcome: "success", block: false });
  });

  test("merged: any block blocks, deny > ask > allow, reasons joined in order, the last updated input wins", () => {
    expect(mergeVerdicts([])).toBeNull();
    const merged = mergeVerdicts([
      { outcome: "success", block: false, permission: "allow", reason: "a", updatedInput: { x: 1 } },
      { outcome: "success", block: false, permission: "ask", updatedInput: { x: 2 } },
      { outcome: "blocking", block: true, reason: "b" },
    ]);
    expect(merged).toEqual({ outcome: "blocking", block: true, permission: "ask", reason: "a\nb", updatedInput: { x: 2 } });
  });

  test("a hook's allow spares the question but never a protected path's, nor a refusing mode's", () => {
    expect(withHookPermission("ask", "allow", false)).toBe("run");
    expect(withHookPermission("ask", "allow", true)).toBe("ask");
    expect(withHookPermission("refuse", "allow", false)).toBe("refuse");
    expect(withHookPermission("run", "ask", false)).toBe("ask");
    expect(withHookPermission("run", undefined, false)).toBe("run");
  });
});

describe("a hook's run", () => {
  test("stdin carries the input, stdout and stderr stay apart, each kept up to its cap", async () => {
    const { ShellRunner } = await import("../../../src/builtin-agent/tools/shell-runner.ts");
    const shell = new ShellRunner(process.cwd(), { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    const r = await shell.run("cat; head -c 1000000 /dev/zero | tr '\\0' e >&2", { timeoutMs: 10_000, signal: new AbortController().signal, input: "from-stdin", separate: true, capBytes: 1024 });
    expect(r.output).toBe("from-stdin");
    expect(r.errorOutput).toBe("e".repeat(1024));
    expect(r.truncated).toBe(true);
    expect(r.totalBytes).toBe(1_000_010);
  });
});
