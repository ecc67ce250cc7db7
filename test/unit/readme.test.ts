/**
 * The README stands alone in a clone and its commands work as written after `npm install`: shell
 * blocks run npm, npx or node (never a bare `bun` or `svc`, which npm puts on no PATH), every
 * `npm run <script>` it names exists, no reference leaves the repository, and the Node version it
 * names is the one package.json declares.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { REPO_ROOT } from "../helpers/daemon.ts";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The first word of each command line in the ```sh blocks, after variable assignments. */
function shellCommands(): { word: string; line: string }[] {
  const commands: { word: string; line: string }[] = [];
  for (const block of README.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let continued = false;
    for (const raw of block[1]!.split("\n")) {
      const line = raw.trim();
      const continuation = continued;
      continued = line.endsWith("\\");
      if (line === "" || line.startsWith("#") || continuation) continue;
      const rest = line.replace(/\s+#.*$/, "").replace(/^([A-Z_][A-Z0-9_]*=(\$\([^)]*\)|"[^"]*"|\S*)\s*)+/, "");
      commands.push({ word: rest.split(/\s+/)[0] ?? "", line });
    }
  }
  return commands;
}

describe("README", () => {
  test("shell blocks run npm, npx or node (or tools the user has: curl, ollama), never a bare bun or svc", () => {
    const commands = shellCommands();
    expect(commands.length).toBeGreaterThan(10);
    for (const { word, line } of commands) expect({ line, ok: ["npm", "npx", "node", "curl", "ollama", ""].includes(word) }).toEqual({ line, ok: true });
  });

  test("every npm script it names exists", () => {
    const named = new Set([...README.matchAll(/npm run (?:--silent )?([a-z][a-z:-]*)/g)].map((m) => m[1]!));
    expect(named.size).toBeGreaterThan(3);
    for (const script of named) expect({ script, defined: script in pkg.scripts }).toEqual({ script, defined: true });
  });

  test("nothing points outside the repository, and every link resolves in it", () => {
    expect(README).not.toMatch(/\.\.\/|shared\/DESIGN|\/work\//);
    for (const [, target] of README.matchAll(/\]\(([^)#]+)\)/g)) {
      if (/^https?:/.test(target!)) continue;
      expect({ target, exists: existsSync(join(REPO_ROOT, target!)) }).toEqual({ target, exists: true });
    }
  });

  test("the Node it names is the one package.json requires", () => {
    const named = /Node\.js (\d+) or later/.exec(README)?.[1];
    expect(named).toBeDefined();
    expect(pkg.engines.node).toBe(`>=${named}`);
  });

  test("npm start execs the daemon, so signals reach it", () => {
    expect(pkg.scripts.start).toStartWith("exec ");
    expect(pkg.scripts.svc).toStartWith("exec ");
  });
});
