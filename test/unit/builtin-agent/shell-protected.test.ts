/** Which shell command lines name a protected path (and so always ask, with no "always" answer). */
import { describe, expect, test } from "bun:test";
import { shellProtectedPath } from "../../../src/builtin-agent/tools/shell-protected.ts";

const ROOT = "/home/dev/project";

describe("shellProtectedPath", () => {
  test.each([
    "echo '[core] fsmonitor = x' > .git/config",
    "echo x >> .git/config",
    "cat a >.svc/settings.json",
    "printf x 1>.env",
    "echo x | tee .git/hooks/pre-commit",
    "echo x | tee -a .envrc",
    "cp evil.yml .github/workflows/ci.yml",
    "mv settings.json .svc/",
    "mv evil .github",
    "rm -rf .git",
    "rm -rf .*",
    "sed -i s/a/b/ .vscode/settings.json",
    "dd if=x of=.git/config",
    "sort -o.svc/settings.json notes.txt",
    "sort -uo.svc/settings.json notes.txt",
    "gcc --output=.git/hooks/pre-commit x.c",
    "cd .git && echo x > config",
    "cd .g''it && echo x > config",
    'cd ".g"it && echo x > config',
    "cd .g\\it && echo x > config",
    "echo x > .G?T/config",
    "echo x > .{g,x}it/config",
    "echo x > sub/../.git/config",
    "echo x > ../.git/config",
    "(echo x) > .claude/settings.json",
    "echo x > $(pwd)/.git/config",
    `echo x > ${ROOT}/.git/config`,
    "echo x>.husky/pre-commit",
    "git config core.fsmonitor 'touch pwned'",
    "/usr/bin/git commit -am x",
    "GIT status",
    "rm -rf .",
    "rm -rf ./",
    "rm -rf ..",
    "mv / x",
    `rm -rf ${ROOT}`,
    `rm -rf ${ROOT}/`,
    "rm -rf /home/dev",
    "find . -delete",
  ])("%p names one", (command) => {
    expect(shellProtectedPath(command, ROOT)).not.toBeNull();
  });

  test.each([
    "echo hi > notes.txt",
    "npm test",
    "cat .gitignore > out.txt",
    "cp a.txt b.txt",
    "rm -rf node_modules dist",
    "rm -rf *",
    "awk '{print $1}' data.txt > out.txt",
    "find src -exec wc -l {} +",
    "[ -f x ] && echo yes",
    "curl -o page.html https://example.com/a.git",
    "sed -i s/github/gitlab/ README.md",
    "echo x > docs/github.md",
    `ls ${ROOT}/src`,
    `rm ${ROOT}-other/x`,
  ])("%p names none", (command) => {
    expect(shellProtectedPath(command, ROOT)).toBeNull();
  });

  test("what it returns is the word as written, for the ask", () => {
    expect(shellProtectedPath("echo x > .git/config", ROOT)).toBe(".git/config");
    expect(shellProtectedPath("git status", ROOT)).toBe("git (it writes .git/)");
    expect(shellProtectedPath("rm -rf .", ROOT)).toBe(". (a folder holding protected paths such as .git/)");
  });
});
