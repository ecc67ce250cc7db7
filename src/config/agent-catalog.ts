/**
 * The agents svc knows how to run (`--agent <name>`), and for each installable one the npm package
 * and pinned version it supports, where its entry lies inside the installed package tree and how it
 * is started. These are launch facts, needed at boot to build the child's command line and by
 * `svc agents` to install and inspect; what an agent does on the wire lives in its runtime profile
 * (`runtime/agent-profiles/`). Versions are the ones issue 15 pins (spec/acp-agents.md §A).
 */
import { join } from "node:path";

export const AGENT_NAMES = ["builtin", "qwen-code", "claude", "gemini", "codex", "opencode", "generic"] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** Agents installed from npm into svc's own agent directory. */
export type InstallableAgent = Exclude<AgentName, "builtin" | "generic">;

/**
 * How the entry is run: `script` under the Bun that runs the daemon (`process.execPath`; inside the
 * compiled binary with `BUN_BE_BUN=1` so it acts as bun), `native` as an executable of its own.
 */
export type AgentRuntime = "script" | "native";

export interface AgentPackage {
  /** The npm package installed (`<name>@<version>`, exact). */
  readonly name: string;
  readonly version: string;
  /** The entry's path below `node_modules/` for a platform and CPU (`process.platform`, `process.arch`). */
  entry(platform: NodeJS.Platform, arch: string): string;
  readonly args: readonly string[];
  readonly runtime: AgentRuntime;
}

/** OpenCode's platform package name part (`opencode-ai`'s optionalDependencies: linux, darwin, windows × x64, arm64). */
const opencodePlatform = (platform: NodeJS.Platform) => (platform === "win32" ? "windows" : platform);

export const AGENT_PACKAGES: Readonly<Record<InstallableAgent, AgentPackage>> = {
  // bin `qwen` is cli-entry.js, a relauncher; cli.js is the agent itself (spec §A, test/interop/install-qwen.ts).
  "qwen-code": { name: "@qwen-code/qwen-code", version: "0.24.4", entry: () => "@qwen-code/qwen-code/cli.js", args: ["--acp"], runtime: "script" },
  // package.json bin `claude-agent-acp` → dist/index.js; started with no arguments.
  claude: { name: "@agentclientprotocol/claude-agent-acp", version: "0.101.0", entry: () => "@agentclientprotocol/claude-agent-acp/dist/index.js", args: [], runtime: "script" },
  // package.json bin `gemini` → bundle/gemini.js; `--acp` (the older `--experimental-acp` is deprecated).
  gemini: { name: "@google/gemini-cli", version: "0.61.0", entry: () => "@google/gemini-cli/bundle/gemini.js", args: ["--acp"], runtime: "script" },
  // package.json bin `codex-acp` → dist/index.js, which starts the `@openai/codex` platform binary it depends on.
  codex: { name: "@agentclientprotocol/codex-acp", version: "2.6.0", entry: () => "@agentclientprotocol/codex-acp/dist/index.js", args: [], runtime: "script" },
  // `opencode-ai`'s bin is a placeholder its postinstall script replaces (svc runs no install
  // scripts); the real program is the native binary of the platform package it depends on.
  opencode: {
    name: "opencode-ai",
    version: "1.18.33",
    entry: (platform, arch) => `opencode-${opencodePlatform(platform)}-${arch}/bin/opencode${platform === "win32" ? ".exe" : ""}`,
    args: ["acp"],
    runtime: "native",
  },
};

export const isAgentName = (name: string): name is AgentName => (AGENT_NAMES as readonly string[]).includes(name);
export const isInstallable = (name: AgentName): name is InstallableAgent => Object.hasOwn(AGENT_PACKAGES, name);

/** `<dataDir>/agents/<name>`: everything `svc agents install <name>` writes is below it. */
export const agentDir = (dataDir: string, name: InstallableAgent): string => join(dataDir, "agents", name);

/** The entry of an agent installed in svc's own agent directory. */
export const installedEntry = (dataDir: string, name: InstallableAgent, platform: NodeJS.Platform, arch: string): string =>
  join(agentDir(dataDir, name), "node_modules", AGENT_PACKAGES[name].entry(platform, arch));
