/**
 * Installs every installable agent's pinned package (`src/config/agent-catalog.ts`) into the
 * `.interop/` cache at the repo root (gitignored), once each and in parallel; an agent whose entry
 * already exists is skipped. Each agent gets its own npm prefix (`.interop/<name>/`) so parallel
 * installs never share a node_modules; qwen-code keeps the prefix `.interop/` itself, where
 * install-qwen.ts put it. The interop daemons run each entry through settings `agents.<name>.path`.
 * `bun test/interop/install-agents.ts [name…]` installs the named agents (default: all) and exits
 * non-zero if any install failed; `npm run test:interop` runs it first.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { AGENT_PACKAGES, type InstallableAgent } from "../../src/config/agent-catalog.ts";
import { INTEROP_DIR } from "./install-qwen.ts";

export const INSTALLABLE = Object.keys(AGENT_PACKAGES) as InstallableAgent[];

/** The npm prefix an agent installs under. */
const prefixOf = (name: InstallableAgent) => (name === "qwen-code" ? INTEROP_DIR : join(INTEROP_DIR, name));

/** The installed entry of `name` in the cache: the catalog's entry below the prefix's node_modules. */
export const interopEntry = (name: InstallableAgent): string => join(prefixOf(name), "node_modules", AGENT_PACKAGES[name].entry(process.platform, process.arch));

/** Installs one agent unless its entry exists; resolves to an error line or null. */
async function install(name: InstallableAgent): Promise<string | null> {
  if (existsSync(interopEntry(name))) return null;
  const pkg = AGENT_PACKAGES[name];
  const spec = `${pkg.name}@${pkg.version}`;
  mkdirSync(prefixOf(name), { recursive: true });
  const proc = Bun.spawn(["npm", "install", "--prefix", prefixOf(name), "--no-save", "--no-audit", "--no-fund", spec], { stdout: "inherit", stderr: "inherit" });
  const code = await proc.exited;
  if (code !== 0) return `npm install ${spec} exited ${code}`;
  return existsSync(interopEntry(name)) ? null : `${spec} installed but ${interopEntry(name)} is missing`;
}

if (import.meta.main) {
  const wanted = process.argv.slice(2);
  const chosen = wanted.length === 0 ? INSTALLABLE : INSTALLABLE.filter((a) => wanted.includes(a));
  const results = await Promise.all(chosen.map(async (a) => [a, await install(a)] as const));
  for (const [name, error] of results) console.log(`install ${name}: ${error ?? "ok"}`);
  if (results.some(([, error]) => error !== null)) process.exit(1);
}
