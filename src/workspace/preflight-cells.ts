/**
 * `GET /workspace/preflight` cells (pure): daemon-level checks (runtime, the agent entry as the
 * runtime checks it before a spawn, the last failed agent start, workspace dir, the workspace's
 * trust and what its settings ask for that is ignored, optional tools) and
 * the agent-level placeholders, which stay `not_started` while no agent child is live (status
 * routes never start one).
 */
import { statSync } from "node:fs";
import { relative } from "node:path";
import type { StatusCell } from "./status-cell.ts";

export const REQUIRED_BUN = ">=1.4";

/** What was found of an optional host tool (see runtime/tool-probe.ts). */
export interface ToolStatus {
  readonly name: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly error?: string;
  /** Found first on PATH at `path`, really at `real` inside the workspace: not run (see workspace/host-executable.ts). */
  readonly refused?: { readonly reason: "inside_workspace"; readonly path: string; readonly real: string };
  /** Not found, and PATH had empty or relative entries, which are not searched. */
  readonly skippedRelative?: boolean;
}

/** The cell of a tool that is not run: missing from PATH's absolute entries, or found inside the workspace. */
function absentToolCell(tool: ToolStatus, workspace: string): StatusCell {
  if (tool.refused) {
    const where = relative(workspace, tool.refused.real);
    return {
      kind: tool.name,
      locality: "daemon",
      status: "warning",
      errorKind: "missing_binary",
      reason: "inside_workspace",
      error: `the ${tool.name} found first on PATH (${tool.refused.path}) lies inside the workspace (${where}); svc does not run the workspace's own programs`,
      hint: `install ${tool.name} outside the workspace, or remove the workspace's folder from PATH`,
    };
  }
  const skipped = tool.skippedRelative ? " (empty and relative PATH entries, such as node_modules/.bin, are not searched)" : "";
  return { kind: tool.name, locality: "daemon", status: "warning", errorKind: "missing_binary", hint: `${tool.name} was not found on PATH${skipped}; agents that use it will be limited` };
}

/** What was found of the agent entry script (see runtime/cli-entry.ts). */
export interface CliEntryFinding {
  readonly path: string | null;
  readonly source: string | null;
  /** null when the entry can be run. */
  readonly problem: string | null;
  readonly error?: string;
  readonly hint?: string;
}

/** Why the agent's last start failed (see runtime/start-failure.ts). */
export interface StartFailureFinding {
  readonly code: string;
  readonly error: string;
  readonly errorKind?: string;
  readonly hint?: string;
  readonly exitCode?: number | null;
  readonly signalCode?: string | null;
  readonly at: string;
}

/** The workspace's trust as the `workspace_trust` cell reports it (see server/trust-report.ts). */
export interface TrustFinding {
  readonly state: "trusted" | "untrusted";
  readonly source: string;
  /** What the workspace's settings ask for that is ignored. */
  readonly ignored: readonly { readonly key: string; readonly reason: string; readonly message: string }[];
  readonly storeProblem?: string;
  readonly hint?: string;
}

const ACP_KINDS = ["auth", "mcp_discovery", "skills", "providers", "tool_registry", "egress"] as const;

function meetsRequired(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 1 || (major === 1 && minor >= 4);
}

export function cliEntryCell(entry: CliEntryFinding): StatusCell {
  const detail = entry.path === null ? undefined : { path: entry.path, source: entry.source };
  if (entry.problem === null) return { kind: "cli_entry", locality: "daemon", status: "ok", detail };
  return { kind: "cli_entry", locality: "daemon", status: "error", errorKind: "missing_binary", error: entry.error, hint: entry.hint, reason: entry.problem, ...(detail ? { detail } : {}) };
}

/** The last failed start of the agent, with the code and message its request was answered with. */
export function agentStartCell(failure: StartFailureFinding): StatusCell {
  const { code, error, errorKind, hint, at, ...exit } = failure;
  return { kind: "agent_start", locality: "daemon", status: "error", ...(errorKind ? { errorKind } : {}), error, hint, detail: { code, at, ...exit } };
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

/**
 * `ok` when the workspace is trusted and its settings ask for nothing that is ignored; a warning
 * otherwise (an untrusted workspace works, asking before every change), naming what is ignored.
 */
export function workspaceTrustCell(trust: TrustFinding): StatusCell {
  const detail = { state: trust.state, source: trust.source, ignoredSettings: trust.ignored.map((i) => i.key), ignoredSettingDetails: trust.ignored.map((i) => ({ ...i })) };
  if (trust.state === "trusted" && trust.ignored.length === 0) return { kind: "workspace_trust", locality: "daemon", status: "ok", detail };
  const ignored = trust.ignored.map((i) => i.message).join("; ");
  const error = trust.storeProblem ?? (trust.state === "untrusted" ? `the workspace is not trusted${ignored ? `: ${ignored}` : ""}` : ignored);
  return { kind: "workspace_trust", locality: "daemon", status: "warning", ...(trust.storeProblem ? { errorKind: "parse_error" } : {}), error, ...(trust.hint ? { hint: trust.hint } : {}), detail };
}

export interface PreflightInput {
  readonly runtimeVersion: string;
  readonly entry: CliEntryFinding;
  /** The last failed start, while no start has succeeded since; the `agent_start` cell appears only then. */
  readonly startFailure: StartFailureFinding | null;
  readonly workspace: string;
  readonly trust: TrustFinding;
  readonly tools: readonly ToolStatus[];
  readonly channelLive: boolean;
  /**
   * The live agent's own `locality: "acp"` cells, already sanitized: they follow the daemon's cells
   * in the agent's order, and a placeholder stays only for a kind the agent did not report.
   */
  readonly agentCells?: readonly StatusCell[];
}

export function preflightCells(input: PreflightInput): StatusCell[] {
  const cells: StatusCell[] = [
    meetsRequired(input.runtimeVersion)
      ? { kind: "node_version", locality: "daemon", status: "ok", detail: { version: input.runtimeVersion, required: REQUIRED_BUN } }
      : { kind: "node_version", locality: "daemon", status: "error", errorKind: "missing_binary", error: "the runtime is too old", detail: { version: input.runtimeVersion, required: REQUIRED_BUN } },
    cliEntryCell(input.entry),
    workspaceDirCell(input.workspace),
    workspaceTrustCell(input.trust),
  ];
  if (input.startFailure !== null) cells.push(agentStartCell(input.startFailure));
  for (const tool of input.tools) {
    const detail = tool.version === null ? {} : { version: tool.version };
    if (tool.path === null) cells.push(absentToolCell(tool, input.workspace));
    else if (tool.error) cells.push({ kind: tool.name, locality: "daemon", status: "warning", errorKind: "missing_file", error: tool.error, detail });
    else cells.push({ kind: tool.name, locality: "daemon", status: "ok", detail });
  }
  const agentCells = input.agentCells ?? [];
  cells.push(...agentCells);
  const reported = new Set(agentCells.map((c) => c.kind));
  for (const kind of ACP_KINDS) {
    if (reported.has(kind)) continue;
    if (input.channelLive && kind !== "egress") cells.push({ kind, locality: "acp", status: "unknown", hint: "the agent does not report this" });
    else cells.push({ kind, locality: "acp", status: "not_started", hint: kind === "egress" ? "egress probing is reserved" : "reported once an agent session is started" });
  }
  return cells;
}
