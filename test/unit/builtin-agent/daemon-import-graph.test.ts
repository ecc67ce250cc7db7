/** The daemon never loads the built-in agent: its import graph reaches neither `src/builtin-agent/` nor the AI or MCP SDKs. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { REPO_ROOT } from "../../helpers/daemon.ts";

/** Every module reachable from `entry` by static or dynamic import: repo files by path, packages by name. */
function importGraph(entry: string): Set<string> {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.endsWith(".ts")) return; // assets and JSON import nothing
    for (const { path } of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (path.startsWith(".")) visit(resolve(dirname(file), path));
      else seen.add(path);
    }
  };
  visit(entry);
  return seen;
}

test("serve's import graph has no built-in agent module and no AI SDK package", () => {
  const graph = [...importGraph(join(REPO_ROOT, "src", "serve-command.ts"))];
  expect(graph.some((m) => m.includes("/src/workspace/"))).toBe(true); // the walk does reach the daemon's layers
  expect(graph.filter((m) => m.includes("/src/builtin-agent/") || m.startsWith("@ai-sdk/") || m.startsWith("@modelcontextprotocol/") || m.endsWith("agent-config.ts"))).toEqual([]);
});

test("main.ts reaches the agent only through the --acp dynamic import", () => {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const imports = transpiler.scanImports(readFileSync(join(REPO_ROOT, "src", "main.ts"), "utf8"));
  // The built-in agent is src/builtin-agent/ (`./agents-command.ts`, the `svc agents` subcommand, and `agent-install/` are not it).
  expect(imports.filter((i) => i.path.includes("/builtin-agent/"))).toEqual([{ path: "./builtin-agent/run-agent.ts", kind: "dynamic-import" }]);
});
