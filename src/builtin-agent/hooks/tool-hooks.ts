/**
 * The hooks' part in one tool call (`tool-call.ts`): `PreToolUse` before the call is prepared and
 * approved, `PostToolUse` after it completed.
 *
 * PreToolUse: a block (exit code 2, `decision: "block"`, `permissionDecision: "deny"`) fails the
 * call unrun and the model reads the hook's reason; `updatedInput` replaces the arguments (prepared
 * and checked like the model's own); `permissionDecision: "allow"` spares the permission question
 * (never for a protected path, and never against a mode that refuses), `"ask"` asks where the mode
 * would not. PostToolUse: its reason (a block) and context are added to what the model reads.
 */
import type { AgentSession } from "../agent-session.ts";
import type { PermissionDecision } from "./hook-decision.ts";
import type { Hooks } from "./hooks.ts";

/** Longest tool result kept in a PostToolUse payload. */
const MAX_RESPONSE_CHARS = 64 * 1024;
/** Longest text of the hooks' the model reads with one call (a reason, context); the rest is cut. */
export const MAX_HOOK_NOTE_CHARS = 8 * 1024;

export const boundNote = (text: string) => (text.length > MAX_HOOK_NOTE_CHARS ? `${text.slice(0, MAX_HOOK_NOTE_CHARS)}… [cut]` : text);

export interface PreToolOutcome {
  /** Set when the call must not run: what the model is told. */
  readonly blocked?: string;
  readonly args: Record<string, unknown>;
  readonly permission?: PermissionDecision;
}

export class ToolHooks {
  constructor(private readonly hooks: Hooks) {}

  async pre(session: AgentSession, toolName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<PreToolOutcome> {
    const verdict = await this.hooks.run("PreToolUse", session.id, { tool_name: toolName, tool_input: args }, signal, toolName);
    if (verdict === null) return { args };
    if (verdict.block) return { args, blocked: boundNote(`${toolName} was blocked by a PreToolUse hook${verdict.reason ? `: ${verdict.reason}` : " (no reason given)"}`) };
    return { args: verdict.updatedInput ?? args, ...(verdict.permission ? { permission: verdict.permission } : {}) };
  }

  /** What to add to the model's reading of a completed call (bounded by the model cap there), or "". */
  async post(session: AgentSession, toolName: string, args: Record<string, unknown>, response: string, signal: AbortSignal): Promise<string> {
    const verdict = await this.hooks.run("PostToolUse", session.id, { tool_name: toolName, tool_input: args, tool_response: response.slice(0, MAX_RESPONSE_CHARS) }, signal, toolName);
    if (verdict === null) return "";
    const notes = [...(verdict.block ? [`[PostToolUse hook: ${verdict.reason ?? "blocked"}]`] : []), ...(verdict.additionalContext ? [`[PostToolUse hook context: ${verdict.additionalContext}]`] : [])];
    return boundNote(notes.join("\n"));
  }
}

/** The approval decision once a PreToolUse hook had its say (see the header). */
export function withHookPermission(decision: "run" | "ask" | "refuse", permission: PermissionDecision | undefined, protectedPath: boolean): "run" | "ask" | "refuse" {
  if (decision === "refuse" || permission === undefined) return decision;
  if (permission === "allow") return protectedPath ? decision : "run";
  if (permission === "ask") return "ask";
  return "refuse";
}
