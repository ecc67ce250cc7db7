/**
 * The bound workspace's trust as `GET /workspace/trust` and the preflight `workspace_trust` cell
 * report it: the reference daemon's fields (`v`, `workspaceCwd`, `folderTrustEnabled`,
 * `effective {state, source}`, `explicitTrustLevel`, `requiresDaemonRestartForChanges`) and svc's:
 * the folder whose decision counts, what the workspace's settings asked for that is ignored under
 * that decision (for the built-in agent, the one agent that reads `.svc/settings.json`): the keys
 * in `ignoredSettings` (what a notice names), each with its reason and a sentence in
 * `ignoredSettingDetails`; and what to do about it.
 *
 * `requiresDaemonRestartForChanges` is false: a decision made through `POST /workspace/trust/request`
 * or `svc trust` counts at once for the daemon's checks and reaches a live built-in agent at once
 * (`trust-sync.ts`). (The host settings' `security.folderTrust`, like every host setting, is read
 * at start.)
 */
import type { Config } from "../config/config.ts";
import { readWorkspacePolicy, type IgnoredSetting } from "../config/workspace-policy.ts";
import { storePath, type TrustLevel, type TrustSource, type WorkspaceTrust } from "../trust/index.ts";
import type { TrustFinding } from "../workspace/preflight-cells.ts";

export interface TrustReport {
  v: 1;
  workspaceCwd: string;
  folderTrustEnabled: boolean;
  effective: { state: "trusted" | "untrusted"; source: TrustSource };
  explicitTrustLevel: TrustLevel | null;
  requiresDaemonRestartForChanges: false;
  /** The folder of the trust-store entry or settings folder that decided, or null. */
  decidedBy: string | null;
  /** The keys of the workspace settings that are ignored, e.g. `tools.approvalMode`. */
  ignoredSettings: string[];
  ignoredSettingDetails: IgnoredSetting[];
  /** Why the trust store cannot be used (it then trusts nothing), when it cannot. */
  storeProblem?: string;
  /** What the user can do, when the workspace is not trusted. */
  hint?: string;
}

/** The report on `workspace`'s trust (default: the primary workspace). */
export function trustReport(config: Config, trust: WorkspaceTrust, workspace = config.workspace): TrustReport {
  const decision = trust.decision();
  // The data dir's path stays in the log; the answer names the file only.
  const problem = trust.storeProblem()?.replaceAll(storePath(config.dataDir), "<data dir>/trust.json") ?? null;
  const ignored =
    config.agent.agent === "builtin" ? readWorkspacePolicy({ dataDir: config.dataDir, workspace, trusted: decision.trusted, approvalModeFlag: config.approvalMode }).policy.ignored : [];
  const hint = decision.trusted
    ? undefined
    : problem !== null
      ? "fix or remove the trust store, then trust the folder"
      : `trust the folder: svc trust ${workspace}, svc serve --trust-workspace, or POST /workspace/trust/request {"desiredState":"trusted"}`;
  return {
    v: 1,
    workspaceCwd: workspace,
    folderTrustEnabled: decision.folderTrustEnabled,
    effective: { state: decision.trusted ? "trusted" : "untrusted", source: decision.source },
    explicitTrustLevel: decision.explicitTrustLevel,
    requiresDaemonRestartForChanges: false,
    decidedBy: decision.folder,
    ignoredSettings: ignored.map((i) => i.key),
    ignoredSettingDetails: [...ignored],
    ...(problem === null ? {} : { storeProblem: problem }),
    ...(hint === undefined ? {} : { hint }),
  };
}

/** The report as the preflight `workspace_trust` cell takes it. */
export function trustFinding(report: TrustReport): TrustFinding {
  const { state, source } = report.effective;
  return { state, source, ignored: report.ignoredSettingDetails, ...(report.storeProblem ? { storeProblem: report.storeProblem } : {}), ...(report.hint ? { hint: report.hint } : {}) };
}
