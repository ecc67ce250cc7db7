/**
 * Installs every interop agent's pinned package into the `.interop/` cache at the repo root
 * (gitignored), once each and in parallel; an agent whose entry already exists is skipped. Each
 * agent gets its own npm prefix (`.interop/<name>/`) so parallel installs never share a
 * node_modules; qwen-code keeps the prefix `.interop/` itself, where install-qwen.ts put it.
 * `bun test/interop/install-agents.ts [name…]` installs the named agents (default: all) and exits
 * non-zero if any install failed; `npm run test:interop` runs it first.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { INTEROP_DIR, QWEN_CLI, QWEN_VERSION } from "./install-qwen.ts";

export interface InteropAgent {
  readonly name: "qwen-code" | "claude" | "gemini" | "codex" | "opencode";
  readonly spec: string;
  /** npm prefix the package installs under. */
  readonly prefix: string;
  /** The file the daemon launches (SVC_CLI_ENTRY): the package's own file, never a .bin symlink. */
  readonly entry: string;
}

const under = (name: string) => join(INTEROP_DIR, name);
const modules = (prefix: string, ...path: string[]) => join(prefix, "node_modules", ...path);

/** The pinned versions from issue 15's table. */
export const INTEROP_AGENTS: readonly InteropAgent[] = [
  { name: "qwen-code", spec: `@qwen-code/qwen-code@${QWEN_VERSION}`, prefix: INTEROP_DIR, entry: QWEN_CLI },
  {
    name: "claude",
    spec: "@agentclientprotocol/claude-agent-acp@0.101.0",
    prefix: under("claude"),
    entry: modules(under("claude"), "@agentclientprotocol", "claude-agent-acp", "dist", "index.js"),
  },
  { name: "gemini", spec: "@google/gemini-cli@0.61.0", prefix: under("gemini"), entry: modules(under("gemini"), "@google", "gemini-cli", "bundle", "gemini.js") },
  // The real file, not the .bin symlink: codex-acp runs its main only when argv[1] is its own path.
  { name: "codex", spec: "@agentclientprotocol/codex-acp@2.6.0", prefix: under("codex"), entry: modules(under("codex"), "@agentclientprotocol", "codex-acp", "dist", "index.js") },
  { name: "opencode", spec: "opencode-ai@1.18.33", prefix: under("opencode"), entry: modules(under("opencode"), ".bin", "opencode") },
];

/** Installs one agent unless its entry exists; resolves to an error line or null. */
async function install(agent: InteropAgent): Promise<string | null> {
  if (existsSync(agent.entry)) return null;
  mkdirSync(agent.prefix, { recursive: true });
  const proc = Bun.spawn(["npm", "install", "--prefix", agent.prefix, "--no-save", "--no-audit", "--no-fund", agent.spec], {
    stdout: "inherit",
    stderr: "inherit",
  });
  const code = await proc.exited;
  if (code !== 0) return `npm install ${agent.spec} exited ${code}`;
  return existsSync(agent.entry) ? null : `${agent.spec} installed but ${agent.entry} is missing`;
}

if (import.meta.main) {
  const wanted = process.argv.slice(2);
  const chosen = wanted.length === 0 ? INTEROP_AGENTS : INTEROP_AGENTS.filter((a) => wanted.includes(a.name));
  const results = await Promise.all(chosen.map(async (a) => [a.name, await install(a)] as const));
  for (const [name, error] of results) console.log(`install ${name}: ${error ?? "ok"}`);
  if (results.some(([, error]) => error !== null)) process.exit(1);
}
