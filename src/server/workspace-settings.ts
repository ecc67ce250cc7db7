/**
 * `GET /workspace/settings`: the daemon's own effective settings, in the reference daemon's shape
 * (`{v: 1, settings: [{key, type, label, category, description, requiresRestart, default?,
 * options?, values: {effective?}}]}`). Only the keys this daemon reads and acts on are listed, each
 * with the value in force; model keys, the environment, MCP servers and anything the agent alone
 * reads are never listed. A key whose last segment is a secret's name (`config/secret-names.ts`)
 * would be dropped too, so a key added here later cannot publish a credential.
 */
import { AGENT_NAMES } from "../config/agent-catalog.ts";
import type { Config } from "../config/config.ts";
import { isSecretName } from "../config/secret-names.ts";
import { PERMISSION_STRATEGIES } from "../config/settings.ts";

type SettingType = "boolean" | "integer" | "enum";

export interface SettingEntry {
  readonly key: string;
  readonly type: SettingType;
  readonly label: string;
  readonly category: string;
  readonly description: string;
  readonly requiresRestart: boolean;
  readonly default?: unknown;
  readonly options?: { value: string; label: string }[];
  readonly values: { effective?: unknown };
}

const optionsOf = (values: readonly string[]) => values.map((value) => ({ value, label: value }));

export function workspaceSettings(config: Config): { v: 1; settings: SettingEntry[] } {
  const { settings } = config;
  const entries: SettingEntry[] = [
    {
      key: "agent",
      type: "enum",
      label: "Agent",
      category: "Daemon",
      description: "The agent the daemon runs for its sessions (`--agent` overrides it)",
      requiresRestart: true,
      default: "builtin",
      options: optionsOf(AGENT_NAMES),
      values: { effective: config.agent.agent },
    },
    {
      key: "policy.permissionStrategy",
      type: "enum",
      label: "Permission strategy",
      category: "Daemon",
      description: "Who decides a permission request when several clients are attached",
      requiresRestart: true,
      default: "first-responder",
      options: optionsOf(PERMISSION_STRATEGIES),
      values: { effective: settings.permissionStrategy },
    },
    {
      key: "policy.consensusQuorum",
      type: "integer",
      label: "Consensus quorum",
      category: "Daemon",
      description: "Votes a permission request needs under the consensus strategy (unset: a majority of the clients registered when it was asked)",
      requiresRestart: true,
      values: settings.consensusQuorum === null ? {} : { effective: settings.consensusQuorum },
    },
    {
      key: "security.folderTrust.enabled",
      type: "boolean",
      label: "Folder trust",
      category: "Security",
      description: "Run the agent's tools in a workspace only once the user trusts it",
      requiresRestart: true,
      default: true,
      values: { effective: settings.folderTrust.enabled },
    },
  ];
  return { v: 1, settings: withoutSecrets(entries) };
}

/**
 * `entries` but those whose key's last segment names a secret as an environment variable would
 * (camelCase read as SNAKE_CASE: `apiKey`, `clientSecret`, `auth.token`, `db.password`).
 */
export const withoutSecrets = (entries: readonly SettingEntry[]): SettingEntry[] =>
  entries.filter((entry) => !isSecretName(entry.key.slice(entry.key.lastIndexOf(".") + 1).replace(/([a-z0-9])([A-Z])/g, "$1_$2")));
