/**
 * Asking the client before a tool call runs: `session/request_permission` with the reference
 * agent's option ids. `proceed_always` is remembered for the rest of the session for the call's
 * scope only (`PreparedCall.alwaysScope`): the same tool by name, or for run_shell_command the same
 * exact command line. It never carries over between tools, MCP tools and shell included. A call
 * with no scope (a protected path) is offered no `proceed_always`, and that answer to it is a refusal.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { boundTitle } from "./acp-bounds.ts";
import type { AgentSession } from "./agent-session.ts";
import type { AlwaysScope } from "./tools/tool.ts";

export type Verdict = "approved" | "declined" | "cancelled";

export function permissionOptions(always: AlwaysScope | null): acp.PermissionOption[] {
  return [
    ...(always === null ? [] : [{ optionId: "proceed_always", name: boundTitle(always.label), kind: "allow_always" } as const]),
    { optionId: "proceed_once", name: "Allow", kind: "allow_once" },
    { optionId: "cancel", name: "Reject", kind: "reject_once" },
  ];
}

export async function askPermission(client: acp.AgentContext, session: AgentSession, always: AlwaysScope | null, toolCall: acp.ToolCallUpdate, signal: AbortSignal): Promise<Verdict> {
  let response: acp.RequestPermissionResponse;
  try {
    response = await client.request("session/request_permission", { sessionId: session.id, toolCall, options: permissionOptions(always) }, { cancellationSignal: signal, stopWaitingOnCancel: true });
  } catch {
    // The request was cancelled with the turn, or the client failed it: nothing runs.
    return "cancelled";
  }
  if (signal.aborted || response.outcome.outcome === "cancelled") return "cancelled";
  switch (response.outcome.optionId) {
    case "proceed_always":
      if (always === null) return "declined";
      session.alwaysAllowed.add(always.key);
      return "approved";
    case "proceed_once":
      return "approved";
    default:
      // `cancel`, or an id we did not offer: both are a refusal.
      return "declined";
  }
}
