/**
 * What a workspace's `.svc/settings.json` may change in the built-in agent, and what it asked for
 * that was ignored. A workspace is untrusted input (a cloned repository writes its own settings
 * file), so:
 *
 * - `tools.approvalMode`: the base is `--approval-mode`, else the host settings', else `auto`; an
 *   untrusted workspace holds it to `plan` or `default` (`default` for anything wider). The
 *   workspace's own mode then applies when it narrows (`plan` below `default` below the others),
 *   and, only in a trusted workspace without `--approval-mode`, when it is another mode. `yolo`
 *   never comes from a workspace file, trusted or not: only from the host settings or the flag.
 * - `tools.disabled`: a trusted workspace's list replaces the host's (so a tool the host disabled
 *   can be enabled for one project); an untrusted workspace can only add names to the host's.
 * - `model.providers` (and the daemon's own `security`, `agents`, `agent`) are read from the host
 *   settings only: a workspace file naming them is ignored, trusted or not.
 * - `mcpServers`: a workspace's start only while it is trusted (`mcp-settings.ts`); untrusted, they are ignored.
 * - `hooks`: a workspace's run only while it is trusted (`hooks-config.ts`); untrusted, they are ignored.
 *
 * Each ignored request is an `IgnoredSetting` (bounded: fixed keys, validated modes, at most
 * MAX_NAMED_TOOLS tool names of at most MAX_NAME_CHARS each), reported in one warning line at
 * start, in `GET /workspace/preflight` and in `GET /workspace/trust`.
 */
import { join } from "node:path";
import { APPROVAL_MODES, DEFAULT_APPROVAL_MODE, isApprovalMode, untrustedMode, type ApprovalMode } from "./approval-modes.ts";
import { objectAt, readSettingsDoc, type SettingsDoc } from "./settings-doc.ts";

export type IgnoreReason = "yolo_host_only" | "untrusted_workspace" | "approval_mode_flag" | "host_only";

export interface IgnoredSetting {
  /** The settings key, e.g. `tools.approvalMode`, `tools.disabled`, `mcpServers`. */
  readonly key: string;
  readonly reason: IgnoreReason;
  /** One sentence saying what was asked and why it was not applied. */
  readonly message: string;
}

export interface WorkspacePolicy {
  readonly approvalMode: ApprovalMode;
  /** Sorted, without duplicates. */
  readonly disabledTools: readonly string[];
  readonly ignored: readonly IgnoredSetting[];
}

export interface PolicyInputs {
  readonly host: SettingsDoc;
  readonly local: SettingsDoc;
  readonly hostFile: string;
  readonly workspaceFile: string;
  readonly trusted: boolean;
  /** `--approval-mode` (`svc serve`, passed on to `svc --acp`), or null. */
  readonly approvalModeFlag: ApprovalMode | null;
}

/** Most names in a `tools.disabled` list; the rest are ignored with a warning. */
export const MAX_DISABLED_TOOLS = 512;
/** Tool names an ignored-setting message names at most, each cut to MAX_NAME_CHARS. */
const MAX_NAMED_TOOLS = 8;
const MAX_NAME_CHARS = 64;

/** Keys a workspace file may not set, each with what it is. */
const HOST_ONLY: readonly (readonly [path: readonly string[], what: string])[] = [
  [["model", "providers"], "model providers"],
  [["security"], "security settings (folder trust)"],
  [["agents"], "agent paths and endpoints"],
  [["agent"], "the agent choice"],
];

/** How much a mode lets run unasked, for "narrows": `auto-edit` and `auto` widen different things, so neither narrows the other. */
const RANK: Readonly<Record<ApprovalMode, number>> = { plan: 0, default: 1, "auto-edit": 2, auto: 2, yolo: 3 };

function approvalModeOf(file: string, doc: SettingsDoc, warnings: string[]): ApprovalMode | undefined {
  const mode = objectAt(doc, "tools").approvalMode;
  if (mode === undefined) return undefined;
  if (isApprovalMode(mode)) return mode;
  warnings.push(`${file}: tools.approvalMode must be one of ${APPROVAL_MODES.join(", ")}; ignored`);
  return undefined;
}

function disabledToolsOf(file: string, doc: SettingsDoc, warnings: string[]): string[] | undefined {
  const list = objectAt(doc, "tools").disabled;
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || !list.every((n) => typeof n === "string")) {
    warnings.push(`${file}: tools.disabled must be an array of tool names; ignored`);
    return undefined;
  }
  if (list.length > MAX_DISABLED_TOOLS) warnings.push(`${file}: tools.disabled has more than ${MAX_DISABLED_TOOLS} names; the rest are ignored`);
  return (list as string[]).slice(0, MAX_DISABLED_TOOLS);
}

const hasPath = (doc: SettingsDoc, path: readonly string[]): boolean => {
  let at: unknown = doc;
  for (const key of path) {
    if (at === null || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, key)) return false;
    at = (at as SettingsDoc)[key];
  }
  return true;
};

const namedTools = (names: readonly string[]) =>
  names.slice(0, MAX_NAMED_TOOLS).map((n) => JSON.stringify(n.length > MAX_NAME_CHARS ? `${n.slice(0, MAX_NAME_CHARS - 1)}…` : n)).join(", ") + (names.length > MAX_NAMED_TOOLS ? ` and ${names.length - MAX_NAMED_TOOLS} more` : "");

function resolveMode(inputs: PolicyInputs, local: ApprovalMode | undefined, host: ApprovalMode | undefined, ignored: IgnoredSetting[]): ApprovalMode {
  const base = inputs.approvalModeFlag ?? host ?? DEFAULT_APPROVAL_MODE;
  const mode = inputs.trusted ? base : untrustedMode(base);
  if (local === undefined || local === mode) return mode;
  const ignore = (reason: IgnoreReason, why: string) => void ignored.push({ key: "tools.approvalMode", reason, message: `tools.approvalMode "${local}" is ignored: ${why}` });
  if (local === "yolo") ignore("yolo_host_only", "yolo comes only from the host settings or svc serve --approval-mode");
  else if (RANK[local] < RANK[mode]) return local;
  else if (!inputs.trusted) ignore("untrusted_workspace", `the workspace is not trusted, so its settings may only narrow the mode (${mode})`);
  else if (inputs.approvalModeFlag !== null) ignore("approval_mode_flag", `--approval-mode ${inputs.approvalModeFlag} was given`);
  else return local;
  return mode;
}

function resolveDisabled(inputs: PolicyInputs, local: string[] | undefined, host: string[], ignored: IgnoredSetting[]): string[] {
  if (local === undefined) return host;
  if (inputs.trusted) return local;
  const kept = new Set(local);
  const reenabled = host.filter((name) => !kept.has(name));
  if (reenabled.length > 0)
    ignored.push({
      key: "tools.disabled",
      reason: "untrusted_workspace",
      message: `tools.disabled would re-enable ${namedTools(reenabled)} (disabled in the host settings); the workspace is not trusted, so its list may only add tools`,
    });
  return [...host, ...local];
}

export function workspacePolicy(inputs: PolicyInputs, warnings: string[]): WorkspacePolicy {
  const ignored: IgnoredSetting[] = [];
  const approvalMode = resolveMode(inputs, approvalModeOf(inputs.workspaceFile, inputs.local, warnings), approvalModeOf(inputs.hostFile, inputs.host, warnings), ignored);
  const disabled = resolveDisabled(inputs, disabledToolsOf(inputs.workspaceFile, inputs.local, warnings), disabledToolsOf(inputs.hostFile, inputs.host, warnings) ?? [], ignored);
  for (const [path, what] of HOST_ONLY) {
    const key = path.join(".");
    if (hasPath(inputs.local, path)) ignored.push({ key, reason: "host_only", message: `${key} is ignored: ${what} come only from the host settings ($SVC_HOME/settings.json)` });
  }
  if (!inputs.trusted && hasPath(inputs.local, ["mcpServers"]))
    ignored.push({ key: "mcpServers", reason: "untrusted_workspace", message: "mcpServers is ignored: the workspace is not trusted, so its MCP servers do not start" });
  if (!inputs.trusted && hasPath(inputs.local, ["hooks"])) ignored.push({ key: "hooks", reason: "untrusted_workspace", message: "hooks is ignored: the workspace is not trusted, so its hooks do not run" });
  return { approvalMode, disabledTools: [...new Set(disabled)].sort(), ignored };
}

export interface PolicyReadInputs {
  /** Where the host settings are (`<data dir>/settings.json`). */
  readonly dataDir: string;
  /** The workspace, canonical. */
  readonly workspace: string;
  readonly trusted: boolean;
  readonly approvalModeFlag: ApprovalMode | null;
}

export const workspaceSettingsFile = (workspace: string) => join(workspace, ".svc", "settings.json");

/** The policy from the settings files as they are now (host: `<data dir>/settings.json`); problems with the files are `warnings`. */
export function readWorkspacePolicy(inputs: PolicyReadInputs): { policy: WorkspacePolicy; warnings: string[] } {
  const warnings: string[] = [];
  const hostFile = join(inputs.dataDir, "settings.json");
  const workspaceFile = workspaceSettingsFile(inputs.workspace);
  const host = readSettingsDoc(hostFile, warnings);
  const local = readSettingsDoc(workspaceFile, warnings);
  return { policy: workspacePolicy({ host, local, hostFile, workspaceFile, trusted: inputs.trusted, approvalModeFlag: inputs.approvalModeFlag }, warnings), warnings };
}

/** The one warning line naming every ignored request, or null when nothing was ignored. */
export function ignoredSettingsLine(workspace: string, ignored: readonly IgnoredSetting[]): string | null {
  if (ignored.length === 0) return null;
  return `workspace settings ignored (${workspaceSettingsFile(workspace)}): ${ignored.map((i) => i.message).join("; ")}`;
}
