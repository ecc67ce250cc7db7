/**
 * Operator settings from `$SVC_HOME/settings.json`. Only the keys the daemon itself needs are read
 * and validated here; the rest of the document is left for the agent. A malformed file or an invalid
 * value fails boot, naming the file and key. How the file is read safely is `settings-file.ts`'s job.
 */
import { isAbsolute } from "node:path";
import { readAgentSettings, type AgentSettings } from "./agent-settings.ts";
import { BootError } from "./boot-error.ts";
import { readChannelSettings, type ChannelSettings } from "./channel-settings.ts";
import { readSettingsText } from "./settings-file.ts";

export const PERMISSION_STRATEGIES = ["first-responder", "designated", "consensus", "local-only"] as const;
export type PermissionStrategy = (typeof PERMISSION_STRATEGIES)[number];

/**
 * `security.folderTrust` (see `src/trust/`): on unless the host settings say `enabled: false`, the
 * user's opt-out, which trusts every folder.
 */
export interface FolderTrustSettings {
  readonly enabled: boolean;
  /** Absolute paths; a workspace equal to or below one of them is trusted (unless a deeper "do not trust" decision covers it). */
  readonly trustedFolders: readonly string[];
}

export interface DaemonSettings extends AgentSettings {
  readonly permissionStrategy: PermissionStrategy;
  /** Votes needed under `consensus`; null = floor(M/2)+1 of the voters registered at issue. */
  readonly consensusQuorum: number | null;
  readonly folderTrust: FolderTrustSettings;
  /** `ui.autoTitle` (default true): a session gets a title after its first turn (sessions/auto-title.ts). */
  readonly autoTitle: boolean;
  /** `channels`: webhook sources and the sessions they prompt (`channel-settings.ts`). */
  readonly channels: ChannelSettings;
  /** `checkpoints.maxBytes`: the rewind snapshots' byte bound (the flag wins); null when unset. */
  readonly maxSnapshotBytes: number | null;
}

function readJsonObject(file: string): Record<string, unknown> | null {
  const text = readSettingsText(file);
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new BootError(`settings file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new BootError(`settings file ${file} must hold a JSON object`);
  return doc as Record<string, unknown>;
}

/** `env` resolves the variables settings name (`agents.<name>.model.apiKeyEnv`). */
export function loadDaemonSettings(file: string, env: Readonly<Record<string, string | undefined>> = {}): DaemonSettings {
  const doc = readJsonObject(file) ?? {};
  const policy = (doc.policy ?? {}) as Record<string, unknown>;
  if (typeof policy !== "object" || Array.isArray(policy)) throw new BootError(`${file}: "policy" must be an object`);

  const strategy = policy.permissionStrategy ?? "first-responder";
  if (!PERMISSION_STRATEGIES.includes(strategy as PermissionStrategy))
    throw new BootError(`${file}: policy.permissionStrategy must be one of ${PERMISSION_STRATEGIES.join(", ")}`);

  const quorum = policy.consensusQuorum ?? null;
  if (quorum !== null && !(Number.isSafeInteger(quorum) && (quorum as number) >= 1))
    throw new BootError(`${file}: policy.consensusQuorum must be a whole number of at least 1`);

  return {
    permissionStrategy: strategy as PermissionStrategy,
    consensusQuorum: quorum as number | null,
    folderTrust: readFolderTrust(file, doc),
    autoTitle: readAutoTitle(file, doc),
    channels: readChannelSettings(file, doc, env),
    maxSnapshotBytes: readSnapshotBytes(file, doc),
    ...readAgentSettings(file, doc, env),
  };
}

/** `checkpoints.maxBytes`: a whole number of at least 1024, or null when unset. */
function readSnapshotBytes(file: string, doc: Record<string, unknown>): number | null {
  const section = doc.checkpoints ?? {};
  if (typeof section !== "object" || section === null || Array.isArray(section)) throw new BootError(`${file}: "checkpoints" must be an object`);
  const value = (section as Record<string, unknown>).maxBytes ?? null;
  if (value !== null && !(Number.isSafeInteger(value) && (value as number) >= 1024)) throw new BootError(`${file}: checkpoints.maxBytes must be a whole number of at least 1024`);
  return value as number | null;
}

/** `ui.autoTitle`: true unless the settings say false. */
function readAutoTitle(file: string, doc: Record<string, unknown>): boolean {
  const ui = doc.ui ?? {};
  if (typeof ui !== "object" || ui === null || Array.isArray(ui)) throw new BootError(`${file}: "ui" must be an object`);
  const autoTitle = (ui as Record<string, unknown>).autoTitle ?? true;
  if (typeof autoTitle !== "boolean") throw new BootError(`${file}: ui.autoTitle must be true or false`);
  return autoTitle;
}

/** `security.folderTrust` of settings file `file` alone (the built-in agent's trust decision needs no other key); a BootError when it cannot be used. */
export function loadFolderTrust(file: string): FolderTrustSettings {
  return readFolderTrust(file, readJsonObject(file) ?? {});
}

/** `security.folderTrust`; absent means enabled with no trusted folders (a workspace is untrusted until the user trusts it). */
function readFolderTrust(file: string, doc: Record<string, unknown>): FolderTrustSettings {
  const security = doc.security ?? {};
  if (typeof security !== "object" || security === null || Array.isArray(security)) throw new BootError(`${file}: "security" must be an object`);
  const trust = (security as Record<string, unknown>).folderTrust ?? {};
  if (typeof trust !== "object" || trust === null || Array.isArray(trust)) throw new BootError(`${file}: security.folderTrust must be an object`);
  const { enabled = true, trustedFolders = [] } = trust as Record<string, unknown>;
  if (typeof enabled !== "boolean") throw new BootError(`${file}: security.folderTrust.enabled must be true or false`);
  if (!Array.isArray(trustedFolders) || !trustedFolders.every((f) => typeof f === "string" && isAbsolute(f)))
    throw new BootError(`${file}: security.folderTrust.trustedFolders must be an array of absolute paths`);
  return { enabled, trustedFolders: trustedFolders as string[] };
}
