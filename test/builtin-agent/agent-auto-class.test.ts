/**
 * `auto` mode's auto-approved shell class (hostile review findings 1-3): every repro of a write,
 * an execution or a read outside the workspace asks, end to end over ACP; benign read-only
 * commands still run unasked. The class itself is checked word by word below.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isReadOnlyCommand, readOnlyPathOperands } from "../../src/builtin-agent/tools/read-only-command.ts";
import { startAgent } from "./agent-client.ts";

const HOSTILE = [
  "sort -S 1K --compress-program sh notes.txt",
  "sort -oout.txt notes.txt",
  "sort -uo out2.txt notes.txt",
  "sort -o/tmp/outside-sort.txt notes.txt",
  "sort -o.svc/settings.json notes.txt",
  "file -f/etc/passwd",
  "file -C -m notes.txt",
  "grep -f/etc/passwd x",
  "grep -R secret .",
  "rg --pre sh x",
  "tree -o out.txt",
  "tree -R",
  "find . -fprint out.txt",
  "find -L .",
  "find . -newer /etc/passwd",
  "head -n5 notes.txt",
  "head -n -5 notes.txt",
  "git -c core.pager=sh log",
  "git log --output=x",
  "git log --ext-diff",
  "git --no-pager log",
  "git diff --no-index notes.txt /etc/passwd",
  "ls -L .",
  "cat -- /etc/passwd",
  "ls -lZ",
  "uniq notes.txt out.txt",
  // git finds a repository above the workspace and runs what its config names; df and which describe the host.
  "git status",
  "git diff",
  "git show HEAD:secret.txt",
  "git log --oneline -n 3",
  "df",
  "df -h .",
  "which -a sh",
  "toString",
  "hasOwnProperty",
];

describe("the auto-approved shell class, on its face", () => {
  test.each(HOSTILE)("%p is outside", (command) => {
    expect(readOnlyPathOperands(command)).toBeNull();
  });
  test.each([
    ["ls -la src", ["src"]],
    ["head -n 5 notes.txt", ["notes.txt"]],
    ["grep -rn needle src", ["src"]],
    ["find src -name x.ts -type f -maxdepth 2", ["src"]],
    ["echo hello world", []],
  ] as const)("%p is inside, with path operands %p", (command, paths) => {
    expect(readOnlyPathOperands(command)).toEqual([...paths]);
  });
});

const PATH = "/usr/local/bin:/usr/bin:/bin";

describe("the auto-approved shell class, on the file system", () => {
  test("a path operand that resolves outside through a symlink is outside; a plain one inside", async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-auto-class-"));
    try {
      writeFileSync(join(root, "notes.txt"), "x\n");
      mkdirSync(join(root, "src"));
      symlinkSync("/etc", join(root, "etc-link"));
      symlinkSync("/nonexistent-target", join(root, "dangling"));
      expect(await isReadOnlyCommand("cat notes.txt", root, PATH)).toBe(true);
      expect(await isReadOnlyCommand("ls src missing.txt", root, PATH)).toBe(true);
      expect(await isReadOnlyCommand("cat etc-link/passwd", root, PATH)).toBe(false);
      expect(await isReadOnlyCommand("ls etc-link", root, PATH)).toBe(false);
      expect(await isReadOnlyCommand("cat dangling", root, PATH)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the auto-approved shell class: what the shell would really run and read", () => {
  test("with an empty or relative PATH entry, or a program found inside the workspace, the command asks", async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-auto-class-"));
    try {
      writeFileSync(join(root, "notes.txt"), "x\n");
      mkdirSync(join(root, "bin"));
      writeFileSync(join(root, "bin", "cat"), "#!/bin/sh\ntouch pwned\n");
      chmodSync(join(root, "bin", "cat"), 0o755);
      expect(await isReadOnlyCommand("cat notes.txt", root, PATH)).toBe(true);
      expect(await isReadOnlyCommand("cat notes.txt", root, `${PATH}:`)).toBe(false);
      expect(await isReadOnlyCommand("cat notes.txt", root, `::${PATH}`)).toBe(false);
      expect(await isReadOnlyCommand("cat notes.txt", root, `node_modules/.bin:${PATH}`)).toBe(false);
      expect(await isReadOnlyCommand("cat notes.txt", root, `${join(root, "bin")}:${PATH}`)).toBe(false);
      expect(await isReadOnlyCommand("tree", root, "/nonexistent-dir")).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("an operand that is a FIFO (reading it blocks) asks", async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-auto-class-"));
    try {
      expect(Bun.spawnSync(["mkfifo", join(root, "fifo")]).exitCode).toBe(0);
      expect(await isReadOnlyCommand("cat fifo", root, PATH)).toBe(false);
      expect(await isReadOnlyCommand("wc -l fifo", root, PATH)).toBe(false);
      expect(await isReadOnlyCommand("ls .", root, PATH)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("auto mode end to end", () => {
  test("the review's repros ask (and, declined, change nothing); a benign read-only command runs unasked", async () => {
    const outside = mkdtempSync(join(tmpdir(), "svc-auto-outside-"));
    try {
      await using a = await startAgent({ files: { "notes.txt": "touch pwned_by_sort\n".repeat(2000) }, trusted: true, approvalMode: "auto" });
      const { sessionId } = await a.newSession();
      a.onPermission = () => ({ outcome: "selected", optionId: "cancel" });
      const repros = [
        "sort -S 1K --compress-program sh notes.txt",
        "sort -oout.txt notes.txt",
        "sort -uo out2.txt notes.txt",
        `sort -o${outside}/outside-sort.txt notes.txt`,
        "sort -o.svc/settings.json notes.txt",
        "file -f/etc/passwd",
        "file -C -m notes.txt",
      ];
      a.model.enqueue({ kind: "tools", calls: [...repros, "wc -l notes.txt"].map((command) => ({ name: "run_shell_command", args: { command } })) }, { kind: "text", text: "ok" });
      const { response } = await a.turn(sessionId, "try");
      expect(response.stopReason).toBe("end_turn");
      const asked = a.permissionRequests.map((r) => (r.toolCall.rawInput as { command: string }).command);
      expect(asked).toEqual(repros);
      expect(readdirSync(a.workspace).sort()).toEqual(["notes.txt"].concat(existsSync(join(a.workspace, ".svc")) ? [".svc"] : []).sort());
      expect(existsSync(join(a.workspace, "notes.txt.mgc"))).toBe(false);
      expect(readdirSync(outside)).toEqual([]);
      const results = (a.model.requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === "tool").map((m) => m.content);
      expect(results.at(-1)).toBe("2000 notes.txt\n\n[exit code 0]");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
