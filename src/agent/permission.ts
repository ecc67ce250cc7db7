/**
 * Asking the client before a tool call runs: `session/request_permission` with the reference
 * agent's option ids. `proceed_always` is remembered for the tool's class for the rest of the
 * session (edits: every later edit; shell: every later command).
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentSession } from "./agent-session.ts";
import type { ToolClass } from "./approval.ts";

export type Verdict = "approved" | "declined" | "cancelled";

const ALWAYS_LABEL: Record<ToolClass, string> = { read: "Always allow", edit: "Allow All Edits", execute: "Always Allow Commands" };

export function permissionOptions(toolClass: ToolClass): acp.PermissionOption[] {
  return [
    { optionId: "proceed_always", name: ALWAYS_LABEL[toolClass], kind: "allow_always" },
    { optionId: "proceed_once", name: "Allow", kind: "allow_once" },
    { optionId: "cancel", name: "Reject", kind: "reject_once" },
  ];
}

export async function askPermission(client: acp.AgentContext, session: AgentSession, toolClass: ToolClass, toolCall: acp.ToolCallUpdate, signal: AbortSignal): Promise<Verdict> {
  let response: acp.RequestPermissionResponse;
  try {
    response = await client.request("session/request_permission", { sessionId: session.id, toolCall, options: permissionOptions(toolClass) }, { cancellationSignal: signal, stopWaitingOnCancel: true });
  } catch {
    // The request was cancelled with the turn, or the client failed it: nothing runs.
    return "cancelled";
  }
  if (signal.aborted || response.outcome.outcome === "cancelled") return "cancelled";
  switch (response.outcome.optionId) {
    case "proceed_always":
      session.alwaysAllowed.add(toolClass);
      return "approved";
    case "proceed_once":
      return "approved";
    default:
      // `cancel`, or an id we did not offer: both are a refusal.
      return "declined";
  }
}
