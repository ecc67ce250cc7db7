import { describe, expect, test } from "bun:test";
import { decide } from "../../../src/builtin-agent/approval.ts";
import { readOnlyPathOperands } from "../../../src/builtin-agent/tools/read-only-command.ts";

describe("decide", () => {
  test("read tools run in every mode", () => {
    for (const mode of ["plan", "default", "auto-edit", "auto", "yolo"] as const) expect(decide(mode, "read", false, false)).toBe("run");
  });
  test("the mode table for edits, read-only shell and other shell", () => {
    const row = (mode: Parameters<typeof decide>[0]) => [decide(mode, "edit", false, false), decide(mode, "execute", true, false), decide(mode, "execute", false, false)];
    expect(row("plan")).toEqual(["refuse", "refuse", "refuse"]);
    expect(row("default")).toEqual(["ask", "ask", "ask"]);
    expect(row("auto-edit")).toEqual(["run", "ask", "ask"]);
    expect(row("auto")).toEqual(["ask", "run", "ask"]);
    expect(row("yolo")).toEqual(["run", "run", "run"]);
  });
  test("a protected path asks in every mode but yolo, and plan still refuses", () => {
    const row = (mode: Parameters<typeof decide>[0]) => [decide(mode, "edit", false, true), decide(mode, "execute", true, true), decide(mode, "execute", false, true)];
    expect(row("plan")).toEqual(["refuse", "refuse", "refuse"]);
    expect(row("default")).toEqual(["ask", "ask", "ask"]);
    expect(row("auto-edit")).toEqual(["ask", "ask", "ask"]);
    expect(row("auto")).toEqual(["ask", "ask", "ask"]);
    expect(row("yolo")).toEqual(["run", "run", "run"]);
  });
});

describe("readOnlyPathOperands (the class on its face)", () => {
  test.each(["ls", "ls -la src", "cat README.md", "grep -rn foo src", "wc -l a.txt", "find . -name x.ts", "uniq a.txt", "cat src/a..b.ts"])("%p is read-only", (command) => {
    expect(readOnlyPathOperands(command)).not.toBeNull();
  });
  test.each([
    "rm -rf .",
    "ls; rm x",
    "ls && touch x",
    "ls | sh",
    "cat a > b",
    "echo $(id)",
    "echo `id`",
    "find . -delete",
    "find . -exec rm {} +",
    "sort -o out in",
    "git status",
    "git diff --stat",
    "git branch",
    "git commit -m x",
    "git -c core.pager=sh log",
    "git",
    "echo 'a;b'",
    "ls\nrm x",
    "",
    "FOO=1 ls",
    "cat ~/.ssh/id_rsa",
    "cat /etc/passwd",
    "cat ../../secrets",
    "grep -r key src/../..",
    "grep --file=/etc/shadow x",
    "ls /",
    "uniq in.txt out.txt",
    "git branch evil",
    "git branch -D main",
    "date -s 2020-01-01",
  ])("%p is not", (command) => {
    expect(readOnlyPathOperands(command)).toBeNull();
  });
});
