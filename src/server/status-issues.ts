/**
 * The issues of the `/daemon/status` snapshot (pure) and their roll-up into one overall status.
 * Codes, severities and thresholds follow the reference daemon (spec "Daemon status snapshot"):
 *
 *   session_capacity_high        warning  live sessions ≥ 80 % of --max-sessions (a workspace) or --max-total-sessions
 *   connection_capacity_high     warning  open requests + streams ≥ 80 % of --max-connections
 *   pending_permissions          warning  a permission request awaits a vote
 *   acp_channel_down             error    a workspace has live sessions but no live ACP channel
 *   rate_limit_hits              warning  rate limiting is on and has rejected a request since start
 *   daemon_runtime_starting      warning  a workspace's agent is being started (not yet initialized)
 *   daemon_runtime_failed        error    a workspace's last agent start failed and none has succeeded since
 *   agent_unresponsive           warning  a workspace's agent stopped answering (or reading its input) and was
 *                                         restarted, within the last RECYCLE_ISSUE_MS (not a reference code)
 *   mcp_budget_warning           warning  MCP clients ≥ 75 % of the client budget
 *   mcp_budget_exhausted         error    MCP clients at the budget, or the agent refused one for it
 *   workspace_status_unavailable warning  (`full`) a workspace section timed out or threw
 *   preflight_error              error    (`full`) a preflight cell is in error
 *   recording_degraded           warning  session history is not being recorded
 *   store_unavailable            error    session history cannot be read (history routes answer 503); a warning while another
 *                                         process's lock holds it or another daemon owns the data dir
 *   process_memory_unavailable   warning  the daemon's memory use could not be read
 */
import type { HistoryUnavailable, RecordingDegraded } from "../store/store.ts";
import type { McpBudgetState } from "../runtime/mcp-budget-state.ts";
import type { RateTier } from "./security/rate-limiter.ts";
import type { SectionReport } from "./status-sections.ts";

export type Severity = "warning" | "error";

export interface StatusIssue {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  /** The `full` workspace section the issue is about. */
  readonly section?: string;
}

/** What the issues are judged from, one entry per workspace runtime. */
export interface WorkspaceRuntimeState {
  readonly workspaceCwd: string;
  /** Sessions routed to the workspace's agent. */
  readonly sessions: number;
  readonly channelLive: boolean;
  readonly startInProgress: boolean;
  /** The last start's failure (code and message), while no start has succeeded since. */
  readonly startFailure: { readonly code: string; readonly error: string } | null;
  /** The last time its agent was restarted for not answering (`at`: epoch ms). */
  readonly lastRecycle?: { readonly at: number; readonly message: string } | null;
}

export interface IssueInputs {
  readonly limits: { readonly maxSessions: number; readonly maxTotalSessions: number; readonly listenerMaxConnections: number };
  readonly workspaces: readonly WorkspaceRuntimeState[];
  readonly sessions: number;
  readonly pendingPermissions: number;
  readonly connections: number;
  /** Null when rate limiting is off. */
  readonly rateLimitRejected: Readonly<Record<RateTier, number>> | null;
  readonly mcpBudget: McpBudgetState | null;
  readonly recording: RecordingDegraded | null;
  readonly history: HistoryUnavailable | null;
  readonly memoryReadable: boolean;
  /** Epoch ms of the snapshot. */
  readonly now: number;
}

/** How long after an unresponsive agent was restarted `agent_unresponsive` is reported. */
export const RECYCLE_ISSUE_MS = 15 * 60_000;

/** Share of a cap at which the capacity issues are raised. */
const CAPACITY_WARNING_RATIO = 0.8;
/** Share of the MCP client budget at which `mcp_budget_warning` is raised (at 1, it is exhausted). */
const MCP_BUDGET_WARNING_RATIO = 0.75;

const atCapacity = (used: number, cap: number) => cap > 0 && used / cap >= CAPACITY_WARNING_RATIO;

function capacityIssues(s: IssueInputs): StatusIssue[] {
  const issues: StatusIssue[] = [];
  const many = s.workspaces.length > 1;
  for (const w of s.workspaces)
    if (atCapacity(w.sessions, s.limits.maxSessions))
      issues.push({
        code: "session_capacity_high",
        severity: "warning",
        message: `${many ? `Workspace ${w.workspaceCwd} active sessions` : "Active sessions"} are at ${w.sessions}/${s.limits.maxSessions}.`,
      });
  if (atCapacity(s.sessions, s.limits.maxTotalSessions))
    issues.push({ code: "session_capacity_high", severity: "warning", message: `Total active sessions are at ${s.sessions}/${s.limits.maxTotalSessions}.` });
  if (atCapacity(s.connections, s.limits.listenerMaxConnections))
    issues.push({ code: "connection_capacity_high", severity: "warning", message: `${s.connections} of ${s.limits.listenerMaxConnections} connections in use` });
  return issues;
}

function runtimeIssues(s: IssueInputs): StatusIssue[] {
  const issues: StatusIssue[] = [];
  const where = (w: WorkspaceRuntimeState) => (s.workspaces.length > 1 ? ` for ${w.workspaceCwd}` : "");
  const down = s.workspaces.filter((w) => w.sessions > 0 && !w.channelLive);
  if (down.length > 0)
    issues.push({
      code: "acp_channel_down",
      severity: "error",
      message: down.length === 1 ? `Active sessions exist but the ACP channel is not live${where(down[0]!)}.` : `Active sessions exist but the ACP channel is not live for ${down.length} workspace(s).`,
    });
  for (const w of s.workspaces) {
    const recycle = w.lastRecycle;
    if (recycle && s.now - recycle.at < RECYCLE_ISSUE_MS)
      issues.push({ code: "agent_unresponsive", severity: "warning", message: `At ${new Date(recycle.at).toISOString()} the agent${where(w)} was restarted: ${recycle.message}` });
    if (w.startInProgress) issues.push({ code: "daemon_runtime_starting", severity: "warning", message: `The agent runtime${where(w)} is still starting.` });
    else if (w.startFailure !== null)
      issues.push({ code: "daemon_runtime_failed", severity: "error", message: `The agent runtime${where(w)} failed to start (${w.startFailure.code}): ${w.startFailure.error}` });
  }
  return issues;
}

/** `mcp_budget_exhausted` or `mcp_budget_warning` from what the daemon knows of the budget; nothing while the budget is off or unknown. */
export function mcpBudgetIssue(budget: McpBudgetState | null): StatusIssue | null {
  if (budget === null || budget.mode === "off") return null;
  const ratio = budget.budget !== null && budget.budget > 0 ? budget.liveCount / budget.budget : 0;
  if (budget.refusedCount > 0 || ratio >= 1)
    return {
      code: "mcp_budget_exhausted",
      severity: "error",
      section: "mcp",
      message: `MCP client budget is exhausted (${budget.liveCount}/${budget.budget ?? "unlimited"} clients, ${budget.refusedCount} refused).`,
    };
  if (ratio >= MCP_BUDGET_WARNING_RATIO)
    return { code: "mcp_budget_warning", severity: "warning", section: "mcp", message: `MCP client budget is near capacity (${budget.liveCount}/${budget.budget}).` };
  return null;
}

/** The issues every detail level reports: from in-memory state only. */
export function statusIssues(s: IssueInputs): StatusIssue[] {
  const issues = [...capacityIssues(s)];
  if (s.pendingPermissions > 0) issues.push({ code: "pending_permissions", severity: "warning", message: `${s.pendingPermissions} permission request(s) are pending.` });
  issues.push(...runtimeIssues(s));
  if (s.rateLimitRejected) {
    const total = s.rateLimitRejected.prompt + s.rateLimitRejected.mutation + s.rateLimitRejected.read;
    if (total > 0) issues.push({ code: "rate_limit_hits", severity: "warning", message: `${total} request(s) have been rejected by rate limiting since start.` });
  }
  const budget = mcpBudgetIssue(s.mcpBudget);
  if (budget) issues.push(budget);
  if (s.recording)
    issues.push({
      code: "recording_degraded",
      severity: "warning",
      message:
        s.recording.reason === "unavailable"
          ? `session history is not being recorded: the database could not be opened (${s.recording.error})`
          : s.recording.reason === "read_only"
            ? `session history is not being recorded: the database is read-only (${s.recording.error})`
            : `session history is not being recorded since ${new Date(s.recording.since).toISOString()}: a write failed (${s.recording.error})`,
    });
  if (s.history)
    issues.push({
      code: "store_unavailable",
      // A lock goes by itself, and a second daemon on a data dir is allowed (it serves its own sessions): warnings. A damaged or unreadable file is an error.
      severity: s.history.reason === "locked" || s.history.reason === "data_dir_owned" ? "warning" : "error",
      message: `session history cannot be read (${s.history.reason}: ${s.history.error}); history and catalog routes answer 503 store_unavailable${s.history.reason === "locked" ? " until the lock goes" : ""}`,
    });
  if (!s.memoryReadable)
    issues.push({ code: "process_memory_unavailable", severity: "warning", message: "the daemon's memory use could not be read; it may be out of file descriptors" });
  return issues;
}

/** The issues only `full` reports: from the workspace sections it read. */
export function sectionIssues(sections: Readonly<Record<string, SectionReport>>): StatusIssue[] {
  const issues: StatusIssue[] = [];
  for (const [name, section] of Object.entries(sections))
    if (section.status === "unavailable")
      issues.push({ code: "workspace_status_unavailable", severity: "warning", section: name, message: `${name} status is unavailable (${section.error.kind}: ${section.error.message}).` });
  if (sections.preflight?.status === "error") issues.push({ code: "preflight_error", severity: "error", section: "preflight", message: "Workspace preflight reports an error." });
  return issues;
}

export function rollUp(issues: readonly StatusIssue[]): "ok" | "warning" | "error" {
  if (issues.some((i) => i.severity === "error")) return "error";
  return issues.length > 0 ? "warning" : "ok";
}
