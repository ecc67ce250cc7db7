/**
 * `svc --acp [--workspace-trust trusted|untrusted] [--approval-mode <mode>]`: the built-in agent on
 * stdin/stdout (NDJSON JSON-RPC: the agent's front answers `initialize` and `session/new`, the SDK
 * the rest once a message needs it, see `acp-front.ts`), serving the workspace it was started in. At start
 * it reads the model keys the daemon handed it (`config/agent-keys.ts`; a document that cannot be
 * read ends it with exit code 2), then makes itself non-dumpable and a child subreaper
 * (`process-guard.ts`). Exits when stdin closes or on SIGTERM/SIGINT, killing every shell command
 * still running and what it started (each runs in its own process group, which the daemon's group
 * kill would not reach). MCP stdio servers stay in the agent's group and see their stdin close with
 * it. Diagnostics go to stderr only.
 *
 * Whether the workspace is trusted: what the daemon decided (`--workspace-trust`, and later
 * `svc/control/workspace/trust`), else, run on its own, what the trust store and the host settings
 * say (`src/trust/`); nothing in the environment counts.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { readAgentArgs, type AgentArgs } from "../config/agent-args.ts";
import { rereadMcpServers, resolveAgentConfig } from "../config/agent-config.ts";
import { extensionMcpServers } from "../extensions/extension-contributions.ts";
import { readHandedKeys, type HandedKeys } from "../config/agent-keys.ts";
import { BootError } from "../config/boot-error.ts";
import { dataDirFor } from "../config/config.ts";
import { loadFolderTrust } from "../config/settings.ts";
import { readWorkspacePolicy } from "../config/workspace-policy.ts";
import { WorkspaceTrust } from "../trust/index.ts";
import { findHostExecutable, withHostSearchPath } from "../workspace/host-executable.ts";
import { foldersInside } from "../workspace/protected-target.ts";
import { serveConnection } from "./acp-front.ts";
import { AgentCore } from "./agent-core.ts";
import { ConversationStore } from "./conversation-store.ts";
import { guardAgentProcess } from "./process-guard.ts";

export interface AgentInputs {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The arguments after `--acp`. */
  readonly args: readonly string[];
}

const warn = (message: string) => process.stderr.write(`svc --acp: ${message}\n`);

/** The MCP declarations read again (the workspace's only while it is trusted); their problems go to stderr like those at start. */
function reread(env: AgentInputs["env"], workspace: string, trusted: boolean, dataDir: string) {
  const { servers, warnings } = rereadMcpServers({ env, workspace, trusted, extensionMcpServers: extensionMcpServers(dataDir) });
  for (const warning of warnings) warn(warning);
  return servers;
}

/** The trust decision of an agent run without the daemon's: the trust store and the host settings; any problem with them makes it untrusted. */
function standaloneTrust(dataDir: string, workspace: string): boolean {
  try {
    const folderTrust = loadFolderTrust(join(dataDir, "settings.json"));
    return new WorkspaceTrust({ dataDir, workspace, folderTrust, trustWorkspace: false, warn }).trusted;
  } catch (err) {
    warn(`${err instanceof Error ? err.message : String(err)}; the workspace is treated as untrusted`);
    return false;
  }
}

export async function runAgent(inputs: AgentInputs): Promise<never> {
  let args: AgentArgs;
  try {
    args = readAgentArgs(inputs.args);
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    warn(err.message);
    process.exit(2);
  }
  const workspace = realpathSync(inputs.cwd);
  let handed: HandedKeys;
  try {
    handed = readHandedKeys(inputs.env);
  } catch (err) {
    warn((err as Error).message);
    process.exit(2);
  }
  const dataDir = dataDirFor(inputs.env, process.platform);
  const trusted = args.workspaceTrust === null ? standaloneTrust(dataDir, workspace) : args.workspaceTrust === "trusted";
  const resolved = resolveAgentConfig({ env: inputs.env, keys: handed.keys, providers: handed.providers, workspace, trusted, approvalModeFlag: args.approvalMode, extensionMcpServers: extensionMcpServers(dataDir) });
  for (const warning of [...resolved.warnings, ...guardAgentProcess()]) warn(warning);
  // grep's engine: the user's ripgrep when the commands' PATH has one outside the workspace
  // (resolved once; the agent does not watch PATH), else the built-in engine.
  const rg = findHostExecutable("rg", resolved.shellEnv.PATH ?? "", workspace);
  if (rg.kind === "inside_workspace") warn(`rg on PATH (${rg.path}) lies inside the workspace and is not run; grep uses its built-in engine`);
  const ripgrep = rg.kind === "found" ? rg.path : null;
  // Commands and MCP servers search only PATH's absolute entries outside the workspace, so an
  // approved `git status` is the user's git, never a repository's `bin/git`.
  const config = Object.freeze({ ...resolved, shellEnv: withHostSearchPath(resolved.shellEnv, workspace) });
  const protectedFolders = foldersInside(workspace, [dataDir]);
  /** The policy for a trust change at runtime, from the settings as they are then. */
  const policyFor = (value: boolean) => {
    const { policy, warnings } = readWorkspacePolicy({ dataDir, workspace, trusted: value, approvalModeFlag: args.approvalMode });
    for (const warning of warnings) warn(warning);
    return policy;
  };

  const core: AgentCore = new AgentCore({ config, workspace, ripgrep, protectedFolders, store: new ConversationStore(config.conversationsDir), rereadMcpServers: () => reread(inputs.env, workspace, core.trust.trusted, dataDir), policyFor });
  const exit = (code: number): never => {
    core.shell?.killAll();
    process.exit(code);
  };
  process.on("SIGTERM", () => exit(0));
  process.on("SIGINT", () => exit(130));

  // Bun's own stdout writer: `process.stdout` would load Node's stream layer (~6 MB resident) for nothing.
  const sink = Bun.stdout.writer();
  const stdout = new WritableStream<Uint8Array>({
    async write(chunk) {
      sink.write(chunk);
      await sink.flush();
    },
  });
  await serveConnection(core, stdout, Bun.stdin.stream());
  return exit(0);
}
