/**
 * `--agent` and settings `agent` / `agents.<name>.path`: which agent runs, from which entry, with
 * which arguments and runtime (config/agent-launch.ts), and what a missing entry answers
 * (runtime/cli-entry.ts).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_NAMES, AGENT_PACKAGES } from "../../../src/config/agent-catalog.ts";
import { childCommand, SCRIPT_RUNTIME_FLAGS } from "../../../src/runtime/agent-process.ts";
import { cliEntryStatus, MissingCliEntryError, checkCliEntry } from "../../../src/runtime/cli-entry.ts";
import { configFixture } from "../../helpers/config.ts";

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
};

describe("agent selection", () => {
  test("default: the built-in agent, the daemon's own script with --acp", async () => {
    await using fx = configFixture();
    const { agent } = fx.resolve([]);
    expect(agent).toMatchObject({ agent: "builtin", cliEntry: { path: "/opt/svc/main.ts", source: "argv" }, cliArgs: ["--acp"], runtime: "script" });
  });

  test("SVC_CLI_ENTRY alone still runs that script (generic), with SVC_CLI_ARGS", async () => {
    await using fx = configFixture();
    const { agent } = fx.resolve([], { SVC_CLI_ENTRY: "agent.js", SVC_CLI_ARGS: "--acp --x" });
    expect(agent).toMatchObject({ agent: "generic", cliEntry: { path: join(fx.workspace, "agent.js"), source: "env" }, cliArgs: ["--acp", "--x"], runtime: "script" });
  });

  test("an unknown --agent is a boot error listing every name", async () => {
    await using fx = configFixture();
    const err = fx.bootError(["--agent", "claude-code"]);
    for (const name of AGENT_NAMES) expect(err.message).toContain(name);
    expect(err.message).toContain("--agent");
  });

  test("an installable agent runs from svc's agent directory with the catalog's arguments", async () => {
    await using fx = configFixture();
    const gemini = fx.resolve(["--agent", "gemini"]).agent;
    expect(gemini).toMatchObject({ agent: "gemini", cliEntry: { path: join(fx.home, "agents", "gemini", "node_modules", "@google/gemini-cli/bundle/gemini.js"), source: "agent-dir" }, cliArgs: ["--acp"], runtime: "script" });
    const opencode = fx.resolve(["--agent", "opencode"]).agent;
    expect(opencode.runtime).toBe("native");
    expect(opencode.cliArgs).toEqual(["acp"]);
    expect(opencode.cliEntry?.path).toBe(join(fx.home, "agents", "opencode", "node_modules", `opencode-${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`, "bin", process.platform === "win32" ? "opencode.exe" : "opencode"));
  });

  test("the flag wins over settings `agent`, which wins over the default; SVC_CLI_ENTRY wins over settings", async () => {
    await using fx = configFixture();
    fx.writeSettings({ agent: "claude" });
    expect(fx.resolve([]).agent.agent).toBe("claude");
    expect(fx.resolve(["--agent", "codex"]).agent.agent).toBe("codex");
    expect(fx.resolve([], { SVC_CLI_ENTRY: "/a.js" }).agent.agent).toBe("generic");
  });

  test("a named agent ignores SVC_CLI_ENTRY and SVC_CLI_ARGS, with a warning for each", async () => {
    await using fx = configFixture();
    const config = fx.resolve(["--agent", "claude"], { SVC_CLI_ENTRY: "/a.js", SVC_CLI_ARGS: "--y" });
    expect(config.agent).toMatchObject({ agent: "claude", cliArgs: [] });
    expect(config.warnings.join("\n")).toContain("SVC_CLI_ENTRY is ignored");
    expect(config.warnings.join("\n")).toContain("SVC_CLI_ARGS is ignored");
  });

  test("agents.<name>.path replaces the agent directory; generic takes agents.generic.path without SVC_CLI_ENTRY", async () => {
    await using fx = configFixture();
    fx.writeSettings({ agents: { claude: { path: "/opt/claude/dist/index.js" }, generic: { path: "/opt/agent.js" } } });
    expect(fx.resolve(["--agent", "claude"]).agent.cliEntry).toEqual({ path: "/opt/claude/dist/index.js", source: "settings" });
    expect(fx.resolve(["--agent", "generic"]).agent.cliEntry).toEqual({ path: "/opt/agent.js", source: "settings" });
    expect(fx.resolve(["--agent", "generic"], { SVC_CLI_ENTRY: "/env.js" }).agent.cliEntry).toEqual({ path: "/env.js", source: "env" });
  });

  test("agents.codex.model is a boot error when codex runs (codex-acp ignores the endpoint: prompts and key would go to OpenAI)", async () => {
    await using fx = configFixture();
    fx.writeSettings({ agents: { codex: { path: "/opt/codex/dist/index.js", model: { baseUrl: "http://127.0.0.1:9/v1" } } } });
    const message = fx.bootError(["--agent", "codex"]).message;
    expect(message).toContain("agents.codex.model is not supported");
    expect(message).toContain("config.toml");
    // Another agent runs: the codex entry is not in play.
    expect(fx.resolve(["--agent", "claude"]).agent.modelEndpoint).toBeNull();
  });

  test("--agent generic with no entry anywhere is a boot error saying what to set", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--agent", "generic"]).message).toContain("SVC_CLI_ENTRY or agents.generic.path");
  });

  test.each([
    [{ agent: "claud" }, '"agent" must be one of'],
    [{ agent: 3 }, '"agent" must be one of'],
    [{ agents: [] }, '"agents" must be an object'],
    [{ agents: { claude: { path: "rel/index.js" } } }, "agents.claude.path must be an absolute path"],
    [{ agents: { claude: { path: 7 } } }, "agents.claude.path must be an absolute path"],
    [{ agents: { claude: { pth: "/x" } } }, "agents.claude.pth: unknown key"],
    [{ agents: { builtin: { path: "/x" } } }, "agents.builtin: not an agent with a path"],
    [{ agents: { nope: { path: "/x" } } }, "agents.nope: not an agent with a path"],
    [{ agents: { claude: "/x" } }, "agents.claude must be an object"],
  ])("settings %j: boot error %s", async (doc, message) => {
    await using fx = configFixture();
    fx.writeSettings(doc);
    expect(fx.bootError([]).message).toContain(message);
  });
});

describe("a named agent's entry before the start", () => {
  test("not installed: 503 cli_entry_missing whose hint says `svc agents install <name>`", async () => {
    await using fx = configFixture();
    const launch = fx.resolve(["--agent", "gemini"]).agent;
    expect(cliEntryStatus(launch)).toMatchObject({ source: "agent directory", problem: "not_found" });
    const err = thrown(() => checkCliEntry(launch)) as MissingCliEntryError;
    expect(err).toBeInstanceOf(MissingCliEntryError);
    expect(err.status).toBe(503);
    expect(err.code).toBe("cli_entry_missing");
    expect(err.message).toBe("The gemini agent is not installed");
    expect(err.fields.hint).toContain("svc agents install gemini");
  });

  test("a settings path that is missing names the settings key, not the agent directory", async () => {
    await using fx = configFixture();
    fx.writeSettings({ agents: { codex: { path: join(fx.home, "nope.js") } } });
    const launch = fx.resolve(["--agent", "codex"]).agent;
    const err = thrown(() => checkCliEntry(launch)) as MissingCliEntryError;
    expect(err.message).toContain("agents.codex.path");
    expect(err.fields).toMatchObject({ source: "agents.codex.path", reason: "not_found" });
  });

  test("a native agent's binary must be executable; it is spawned itself, not under the runtime", async () => {
    await using fx = configFixture();
    const bin = join(fx.home, "opencode");
    writeFileSync(bin, "#!/bin/sh\n");
    fx.writeSettings({ agents: { opencode: { path: bin } } });
    const launch = fx.resolve(["--agent", "opencode"]).agent;
    chmodSync(bin, 0o644);
    expect(cliEntryStatus(launch).problem).toBe("not_executable");
    chmodSync(bin, 0o755);
    expect(cliEntryStatus(launch).problem).toBeNull();
    expect(childCommand(launch).argv).toEqual([bin, "acp"]);
  });

  test("an installed script agent runs under the daemon's runtime", async () => {
    await using fx = configFixture();
    const entry = join(fx.home, "agents", "claude", "node_modules", AGENT_PACKAGES.claude.entry(process.platform, process.arch));
    mkdirSync(join(entry, ".."), { recursive: true });
    writeFileSync(entry, "");
    const launch = fx.resolve(["--agent", "claude"]).agent;
    expect(cliEntryStatus(launch)).toMatchObject({ path: entry, source: "agent directory", problem: null });
    expect(childCommand(launch).argv).toEqual([launch.execPath, ...SCRIPT_RUNTIME_FLAGS, entry]);
  });
});
