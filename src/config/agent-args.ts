/**
 * The arguments of `svc --acp` (the built-in agent), read here because only config/ reads argv:
 * - `--workspace-trust trusted|untrusted`: the daemon's trust decision for the workspace, which
 *   the agent takes as is (the daemon is the authority; it passes this to every built-in agent it
 *   starts). Without it (the agent run on its own, by an editor) the agent decides from the same
 *   trust store and host settings the daemon reads (`src/trust/`). An argument, not an
 *   environment variable: nothing the agent's commands start inherits it.
 * - `--approval-mode <mode>`: `svc serve --approval-mode`, passed on.
 * Anything else is a BootError naming it.
 */
import { parseArgs } from "node:util";
import { APPROVAL_MODES, isApprovalMode, type ApprovalMode } from "./approval-modes.ts";
import { BootError } from "./boot-error.ts";

export interface AgentArgs {
  /** null: decide from the trust store. */
  readonly workspaceTrust: "trusted" | "untrusted" | null;
  readonly approvalMode: ApprovalMode | null;
}

export function readAgentArgs(args: readonly string[]): AgentArgs {
  let values: { "workspace-trust"?: string; "approval-mode"?: string };
  try {
    values = parseArgs({ args: [...args], options: { "workspace-trust": { type: "string" }, "approval-mode": { type: "string" } }, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new BootError((err as Error).message.replace(/\. To specify.*$/s, "").split("\n")[0]!);
  }
  const trust = values["workspace-trust"];
  if (trust !== undefined && trust !== "trusted" && trust !== "untrusted") throw new BootError(`--workspace-trust: ${JSON.stringify(trust)} is not one of trusted, untrusted`);
  const mode = values["approval-mode"];
  if (mode !== undefined && !isApprovalMode(mode)) throw new BootError(`--approval-mode: ${JSON.stringify(mode)} is not one of ${APPROVAL_MODES.join(", ")}`);
  return { workspaceTrust: trust ?? null, approvalMode: mode ?? null };
}

/** The arguments the daemon appends to `svc --acp` for its decision and flag. */
export function agentArgsFor(trusted: boolean, approvalMode: ApprovalMode | null): string[] {
  return ["--workspace-trust", trusted ? "trusted" : "untrusted", ...(approvalMode === null ? [] : ["--approval-mode", approvalMode])];
}
