/**
 * What a hook's run decides, read as the reference agent and Claude Code read it (pure: no I/O):
 * - exit code 0: stdout, when it is a JSON object, carries the decision (below); other stdout is
 *   context for the model on `UserPromptSubmit` and `SessionStart`, and ignored elsewhere;
 * - exit code 2: block; stderr is the reason (or a JSON object with one);
 * - any other exit, a timeout, a cancel: the hook failed and decides nothing (the work goes on).
 * JSON members: `decision` ("block"/"deny" block, "approve"/"allow" allow), `reason`, `continue:
 * false` (stop the turn, with `stopReason`), and `hookSpecificOutput` {`permissionDecision`
 * allow|deny|ask, `permissionDecisionReason`, `updatedInput` (a tool's arguments, replaced),
 * `additionalContext`}. Several hooks of one event merge: any block blocks, deny > ask > allow,
 * reasons and contexts are joined in hook order, the last `updatedInput` wins.
 */
import type { HookEvent } from "../../config/hooks-config.ts";

export type HookOutcome = "success" | "blocking" | "non_blocking_error" | "timeout" | "cancelled";
export type PermissionDecision = "allow" | "deny" | "ask";

export interface HookRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
}

export interface HookVerdict {
  readonly outcome: HookOutcome;
  readonly block: boolean;
  readonly permission?: PermissionDecision;
  readonly reason?: string;
  readonly additionalContext?: string;
  readonly updatedInput?: Record<string, unknown>;
  /** `continue: false`: the turn stops after this point. */
  readonly stop?: boolean;
}

const BLOCKING_EXIT_CODE = 2;
const PLAIN_CONTEXT_EVENTS: ReadonlySet<HookEvent> = new Set(["UserPromptSubmit", "SessionStart"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

function jsonObject(raw: string): Record<string, unknown> | null {
  if (!raw.startsWith("{")) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The decision members of a hook's JSON output. */
function fromJson(json: Record<string, unknown>, outcome: HookOutcome, forcedBlock: boolean): HookVerdict {
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const permission = ["allow", "deny", "ask"].includes(specific.permissionDecision as string) ? (specific.permissionDecision as PermissionDecision) : undefined;
  const decision = json.decision;
  const block = forcedBlock || decision === "block" || decision === "deny" || permission === "deny";
  const allowed = decision === "approve" || decision === "allow" ? "allow" : undefined;
  const reason = text(specific.permissionDecisionReason) ?? text(json.reason) ?? (json.continue === false ? text(json.stopReason) : undefined);
  const context = text(specific.additionalContext);
  return {
    outcome,
    block,
    ...((permission ?? allowed) ? { permission: permission ?? allowed } : {}),
    ...(reason ? { reason } : {}),
    ...(context ? { additionalContext: context } : {}),
    ...(isObject(specific.updatedInput) ? { updatedInput: specific.updatedInput } : {}),
    ...(json.continue === false ? { stop: true } : {}),
  };
}

/** One run's verdict (see the header). */
export function verdictOf(event: HookEvent, run: HookRun): HookVerdict {
  if (run.cancelled) return { outcome: "cancelled", block: false };
  if (run.timedOut) return { outcome: "timeout", block: false };
  if (run.exitCode === BLOCKING_EXIT_CODE) {
    const stderr = run.stderr.trim();
    const json = jsonObject(stderr);
    if (json) return fromJson(json, "blocking", true);
    return { outcome: "blocking", block: true, ...(stderr ? { reason: stderr } : {}) };
  }
  if (run.exitCode !== 0) return { outcome: "non_blocking_error", block: false };
  const stdout = run.stdout.trim();
  const json = jsonObject(stdout);
  if (json) return fromJson(json, "success", false);
  return { outcome: "success", block: false, ...(stdout && PLAIN_CONTEXT_EVENTS.has(event) ? { additionalContext: stdout } : {}) };
}

const PERMISSION_RANK: Readonly<Record<PermissionDecision, number>> = { allow: 0, ask: 1, deny: 2 };

/** The verdicts of one event's hooks, merged (see the header); null when no hook ran. */
export function mergeVerdicts(verdicts: readonly HookVerdict[]): HookVerdict | null {
  if (verdicts.length === 0) return null;
  let permission: PermissionDecision | undefined;
  let updatedInput: Record<string, unknown> | undefined;
  for (const v of verdicts) {
    if (v.permission && (permission === undefined || PERMISSION_RANK[v.permission] > PERMISSION_RANK[permission])) permission = v.permission;
    if (v.updatedInput) updatedInput = v.updatedInput;
  }
  const joined = (key: "reason" | "additionalContext") => verdicts.flatMap((v) => (v[key] ? [v[key]] : [])).join("\n");
  const reason = joined("reason");
  const additionalContext = joined("additionalContext");
  const block = verdicts.some((v) => v.block);
  return {
    outcome: block ? "blocking" : verdicts.every((v) => v.outcome === "success") ? "success" : "non_blocking_error",
    block,
    ...(permission ? { permission } : {}),
    ...(reason ? { reason } : {}),
    ...(additionalContext ? { additionalContext } : {}),
    ...(updatedInput ? { updatedInput } : {}),
    ...(verdicts.some((v) => v.stop) ? { stop: true } : {}),
  };
}
