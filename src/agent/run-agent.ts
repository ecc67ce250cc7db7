/**
 * `svc --acp`: the built-in agent on stdin/stdout (NDJSON JSON-RPC through the SDK), serving the
 * workspace it was started in. At start it reads the model keys the daemon handed it
 * (`config/agent-keys.ts`; a document that cannot be read ends it with exit code 2), then makes
 * itself non-dumpable and a child subreaper (`process-guard.ts`). Exits when stdin closes or on
 * SIGTERM/SIGINT, killing every shell command still running and what it started (each runs in its
 * own process group, which the daemon's group kill would not reach). MCP stdio servers stay in the
 * agent's group and see their stdin close with it. Diagnostics go to stderr only.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { realpathSync } from "node:fs";
import { Writable } from "node:stream";
import { rereadMcpServers, resolveAgentConfig } from "../config/agent-config.ts";
import { readHandedKeys } from "../config/agent-keys.ts";
import { findHostExecutable } from "../workspace/host-executable.ts";
import { WorkspaceFiles } from "../workspace/workspace-files.ts";
import { buildAgentApp } from "./agent-app.ts";
import { ConversationStore } from "./conversation-store.ts";
import { guardAgentProcess } from "./process-guard.ts";
import { ShellRunner } from "./tools/shell-runner.ts";

export interface AgentInputs {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The host's MCP declarations read again; their problems go to stderr like those at start. */
function reread(env: AgentInputs["env"], workspace: string) {
  const { servers, warnings } = rereadMcpServers({ env, workspace });
  for (const warning of warnings) process.stderr.write(`svc --acp: ${warning}\n`);
  return servers;
}

export async function runAgent(inputs: AgentInputs): Promise<never> {
  const workspace = realpathSync(inputs.cwd);
  let keys: Record<string, string>;
  try {
    keys = readHandedKeys(inputs.env);
  } catch (err) {
    process.stderr.write(`svc --acp: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const config = resolveAgentConfig({ env: inputs.env, keys, workspace });
  for (const warning of [...config.warnings, ...guardAgentProcess()]) process.stderr.write(`svc --acp: ${warning}\n`);
  const shell = new ShellRunner(workspace, config.shellEnv);
  const files = new WorkspaceFiles(workspace, config.trusted);
  // grep's engine: the user's ripgrep when the commands' PATH has one outside the workspace
  // (resolved once; the agent does not watch PATH), else the built-in engine.
  const rg = findHostExecutable("rg", config.shellEnv.PATH ?? "", workspace);
  if (rg.kind === "inside_workspace") process.stderr.write(`svc --acp: rg on PATH (${rg.path}) lies inside the workspace and is not run; grep uses its built-in engine\n`);
  const ripgrep = rg.kind === "found" ? rg.path : null;

  const exit = (code: number): never => {
    shell.killAll();
    process.exit(code);
  };
  process.on("SIGTERM", () => exit(0));
  process.on("SIGINT", () => exit(130));

  const stdout = Writable.toWeb(process.stdout) as WritableStream<Uint8Array>;
  const connection = buildAgentApp({ config, files, shell, ripgrep, store: new ConversationStore(config.conversationsDir), rereadMcpServers: () => reread(inputs.env, workspace) }).connect(acp.ndJsonStream(stdout, Bun.stdin.stream()));
  await connection.closed.catch(() => {});
  return exit(0);
}
