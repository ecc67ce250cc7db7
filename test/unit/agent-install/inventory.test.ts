/** What `svc agents` reports per agent (agent-install/inventory.ts). */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_NAMES, AGENT_PACKAGES } from "../../../src/config/agent-catalog.ts";
import { resolveAgentsConfig } from "../../../src/config/agents-config.ts";
import { agentRows, describeState } from "../../../src/agent-install/inventory.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

function install(home: string, name: keyof typeof AGENT_PACKAGES, version: string) {
  const pkg = AGENT_PACKAGES[name];
  const root = join(home, "agents", name, "node_modules");
  mkdirSync(join(root, pkg.name), { recursive: true });
  writeFileSync(join(root, pkg.name, "package.json"), JSON.stringify({ name: pkg.name, version }));
  const entry = join(root, pkg.entry(process.platform, process.arch));
  mkdirSync(join(entry, ".."), { recursive: true });
  writeFileSync(entry, "");
  if (pkg.runtime === "native") chmodSync(entry, 0o755);
}

describe("svc agents rows", () => {
  test("every known agent, with installed / wrong version / not installed / configured states", async () => {
    await using dir = tempDir("svc-inventory-");
    install(dir.path, "claude", AGENT_PACKAGES.claude.version);
    install(dir.path, "gemini", "0.1.0");
    install(dir.path, "opencode", AGENT_PACKAGES.opencode.version);
    writeFileSync(join(dir.path, "settings.json"), JSON.stringify({ agents: { codex: { path: join(dir.path, "codex.js") } } }));
    const rows = agentRows(resolveAgentsConfig({ args: [], env: { SVC_HOME: dir.path } }));
    expect(rows.map((r) => r.name)).toEqual([...AGENT_NAMES]);
    const state = Object.fromEntries(rows.map((r) => [r.name, describeState(r.state)]));
    expect(state).toEqual({
      builtin: "built in",
      "qwen-code": "not installed",
      claude: `installed ${AGENT_PACKAGES.claude.version}`,
      gemini: "installed 0.1.0 (not the pin: reinstall)",
      codex: "configured path missing",
      opencode: `installed ${AGENT_PACKAGES.opencode.version}`,
      generic: "set SVC_CLI_ENTRY",
    });
    expect(rows.find((r) => r.name === "opencode")?.runtime).toBe("native binary");
    expect(rows.find((r) => r.name === "claude")?.pkg).toBe(`${AGENT_PACKAGES.claude.name}@${AGENT_PACKAGES.claude.version}`);
  });

  test("a native binary that is not executable counts as not installed", async () => {
    await using dir = tempDir("svc-inventory-");
    install(dir.path, "opencode", AGENT_PACKAGES.opencode.version);
    chmodSync(join(dir.path, "agents", "opencode", "node_modules", AGENT_PACKAGES.opencode.entry(process.platform, process.arch)), 0o644);
    const rows = agentRows(resolveAgentsConfig({ args: [], env: { SVC_HOME: dir.path } }));
    expect(rows.find((r) => r.name === "opencode")?.state).toEqual({ kind: "not_installed" });
  });

  test("an unreadable package.json (FIFO, /dev/zero, garbage) is reported at once as version unknown; without the entry, not installed", async () => {
    await using dir = tempDir("svc-inventory-");
    const manifest = (name: keyof typeof AGENT_PACKAGES) => join(dir.path, "agents", name, "node_modules", AGENT_PACKAGES[name].name, "package.json");
    install(dir.path, "gemini", AGENT_PACKAGES.gemini.version);
    rmSync(manifest("gemini"));
    expect(Bun.spawnSync(["mkfifo", manifest("gemini")]).exitCode).toBe(0);
    install(dir.path, "codex", AGENT_PACKAGES.codex.version);
    rmSync(manifest("codex"));
    symlinkSync("/dev/zero", manifest("codex"));
    install(dir.path, "claude", AGENT_PACKAGES.claude.version);
    writeFileSync(manifest("claude"), "not json {");
    install(dir.path, "qwen-code", AGENT_PACKAGES["qwen-code"].version);
    rmSync(join(dir.path, "agents", "qwen-code", "node_modules", AGENT_PACKAGES["qwen-code"].entry(process.platform, process.arch)));
    const rows = agentRows(resolveAgentsConfig({ args: [], env: { SVC_HOME: dir.path } }));
    const state = Object.fromEntries(rows.map((r) => [r.name, r.state]));
    for (const name of ["gemini", "codex", "claude"]) expect({ name, state: state[name] }).toEqual({ name, state: { kind: "unknown_version" } });
    expect(state["qwen-code"]).toEqual({ kind: "not_installed" });
    expect(describeState({ kind: "unknown_version" })).toContain("version unknown");
  });

  test.each([
    [["install"], "install needs an agent name"],
    [["install", "claude", "gemini"], "install takes one agent name"],
    [["uninstall"], "unknown subcommand"],
    [["--registry", "ftp://x"], "--registry: must be an http(s) URL"],
    [["--registry", "nope"], "is not a URL"],
  ])("bad arguments %j: %s", (args, message) => {
    expect(() => resolveAgentsConfig({ args, env: { SVC_HOME: "/nonexistent-svc-home" } })).toThrow(message);
  });

  test("registry: --registry, else SVC_NPM_REGISTRY, else npm's", () => {
    const env = { SVC_HOME: "/nonexistent-svc-home" };
    expect(resolveAgentsConfig({ args: [], env }).registry).toBe("https://registry.npmjs.org/");
    expect(resolveAgentsConfig({ args: [], env: { ...env, SVC_NPM_REGISTRY: "http://127.0.0.1:1/" } }).registry).toBe("http://127.0.0.1:1/");
    expect(resolveAgentsConfig({ args: ["--registry", "http://127.0.0.1:2/"], env: { ...env, SVC_NPM_REGISTRY: "http://127.0.0.1:1/" } }).registry).toBe("http://127.0.0.1:2/");
  });
});
