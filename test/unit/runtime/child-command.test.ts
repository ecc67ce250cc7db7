/**
 * The agent child's command line (DESIGN.md "Processes"): `[runtime, entry, ...args]`, never a PATH
 * lookup; inside the compiled binary its own entry is the binary itself, and a third-party entry
 * runs under it with `BUN_BE_BUN=1`; a script runs with bun's autoloads of the workspace's `.env*` and
 * `bunfig.toml` off; no entry at all is `MissingCliEntryError`.
 */
import { describe, expect, test } from "bun:test";
import type { AgentLaunch } from "../../../src/config/config.ts";
import { childCommand, SCRIPT_RUNTIME_FLAGS } from "../../../src/runtime/agent-process.ts";
import { MissingCliEntryError } from "../../../src/runtime/cli-entry.ts";

const launch = (overrides: Partial<AgentLaunch>): AgentLaunch => ({
  agent: "generic",
  runtime: "script",
  modelEndpoint: null,
  cliEntry: null,
  cliArgs: ["--acp"],
  execPath: "/opt/bun/bin/bun",
  compiled: false,
  baseEnv: {},
  ...overrides,
});

describe("childCommand", () => {
  test("runs SVC_CLI_ENTRY under the daemon's own runtime", () => {
    expect(childCommand(launch({ cliEntry: { path: "/agents/agent.ts", source: "env" } }))).toEqual({
      argv: ["/opt/bun/bin/bun", ...SCRIPT_RUNTIME_FLAGS, "/agents/agent.ts", "--acp"],
      env: {},
    });
  });

  test("runs the daemon's own script with --acp when no entry is set", () => {
    expect(childCommand(launch({ cliEntry: { path: "/src/svc/main.ts", source: "argv" }, cliArgs: ["--acp", "--x"] })).argv).toEqual([
      "/opt/bun/bin/bun",
      ...SCRIPT_RUNTIME_FLAGS,
      "/src/svc/main.ts",
      "--acp",
      "--x",
    ]);
  });

  test("in the compiled binary, its own entry is the binary; another entry runs with BUN_BE_BUN=1", () => {
    const own = childCommand(launch({ compiled: true, execPath: "/usr/local/bin/svc", cliEntry: { path: "/$bunfs/root/svc", source: "argv" } }));
    expect(own).toEqual({ argv: ["/usr/local/bin/svc", "--acp"], env: {} });
    const other = childCommand(launch({ compiled: true, execPath: "/usr/local/bin/svc", cliEntry: { path: "/agents/agent.js", source: "env" } }));
    expect(other).toEqual({ argv: ["/usr/local/bin/svc", ...SCRIPT_RUNTIME_FLAGS, "/agents/agent.js", "--acp"], env: { BUN_BE_BUN: "1" } });
  });

  test("no entry is MissingCliEntryError (503 cli_entry_missing, errorKind missing_binary, not retryable)", () => {
    let thrown: unknown;
    try {
      childCommand(launch({ cliEntry: null }));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MissingCliEntryError);
    expect((thrown as MissingCliEntryError).status).toBe(503);
    expect((thrown as MissingCliEntryError).body()).toMatchObject({ code: "cli_entry_missing", errorKind: "missing_binary", reason: "unresolved", retryable: false, hint: expect.stringContaining("SVC_CLI_ENTRY") });
  });
});
