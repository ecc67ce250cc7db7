/**
 * `GET /workspace/preflight` cells (pure): daemon-level checks (runtime, agent entry, workspace dir,
 * optional tools) and the agent-level placeholders, which stay `not_started` while no agent child
 * is live (status routes never start one).
 */
import { existsSync, statSync } from "node:fs";
import type { AgentLaunch } from "../config/config.ts";
import type { StatusCell } from "./status-cell.ts";

export const REQUIRED_BUN = ">=1.4";

/** What was found of an optional host tool (see runtime/tool-probe.ts). */
export interface ToolStatus {
  readonly name: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
}
const ACP_KINDS = ["auth", "mcp_discovery", "skills", "providers", "tool_registry", "egress"] as const;

function meetsRequired(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 1 || (major === 1 && minor >= 4);
}

export function cliEntryCell(launch: AgentLaunch): StatusCell {
  const entry = launch.cliEntry;
  if (entry === null)
    return { kind: "cli_entry", locality: "daemon", status: "error", errorKind: "missing_binary", error: "Cannot determine the CLI entry path for spawning the agent child", hint: "set SVC_CLI_ENTRY to the agent's entry script" };
  const detail = { path: entry.path, source: entry.source === "env" ? "SVC_CLI_ENTRY" : "process.argv[1]" };
  const embedded = launch.compiled && entry.source === "argv";
  if (!embedded && !existsSync(entry.path))
    return { kind: "cli_entry", locality: "daemon", status: "error", errorKind: "missing_binary", error: "the agent entry script does not exist", hint: "check SVC_CLI_ENTRY", detail };
  return { kind: "cli_entry", locality: "daemon", status: "ok", detail };
}

export function workspaceDirCell(path: string): StatusCell {
  let ok = false;
  try {
    ok = statSync(path).isDirectory();
  } catch {
    ok = false;
  }
  return ok
    ? { kind: "workspace_dir", locality: "daemon", status: "ok", detail: { path } }
    : { kind: "workspace_dir", locality: "daemon", status: "error", errorKind: "missing_file", error: "the bound workspace is missing or not a directory", detail: { path } };
}

export function preflightCells(input: { runtimeVersion: string; launch: AgentLaunch; workspace: string; tools: readonly ToolStatus[]; channelLive: boolean }): StatusCell[] {
  const cells: StatusCell[] = [
    meetsRequired(input.runtimeVersion)
      ? { kind: "node_version", locality: "daemon", status: "ok", detail: { version: input.runtimeVersion, required: REQUIRED_BUN } }
      : { kind: "node_version", locality: "daemon", status: "error", errorKind: "missing_binary", error: "the runtime is too old", detail: { version: input.runtimeVersion, required: REQUIRED_BUN } },
    cliEntryCell(input.launch),
    workspaceDirCell(input.workspace),
  ];
  for (const tool of input.tools) {
    const detail = tool.version === null ? {} : { version: tool.version };
    if (tool.path === null) cells.push({ kind: tool.name, locality: "daemon", status: "warning", errorKind: "missing_binary", hint: `${tool.name} was not found on PATH; agents that use it will be limited` });
    else if (tool.error) cells.push({ kind: tool.name, locality: "daemon", status: "warning", errorKind: "missing_file", error: tool.error, detail });
    else cells.push({ kind: tool.name, locality: "daemon", status: "ok", detail });
  }
  for (const kind of ACP_KINDS) {
    if (input.channelLive && kind !== "egress") cells.push({ kind, locality: "acp", status: "unknown", hint: "the agent does not report this" });
    else cells.push({ kind, locality: "acp", status: "not_started", hint: kind === "egress" ? "egress probing is reserved" : "reported once an agent session is started" });
  }
  return cells;
}
