/**
 * The built-in agent's frozen configuration (`svc --acp`), read once at its start from the
 * environment and the settings files. Lives in `config/` because only this folder reads the
 * environment and settings; the agent itself receives the result.
 *
 * Models: first those of the providers set up through the daemon's API (handed over with the keys,
 * `agent-keys.ts`, so a provider the user just set up is the default), then one per provider whose
 * variables are set (OpenAI-compatible, OpenRouter, DashScope, Anthropic, Google), plus
 * the named models of `model.providers` in the daemon host's settings. Keys are referenced by
 * environment-variable name and resolved here, never written anywhere; under the daemon they
 * arrive on an inherited descriptor instead of the environment (`agent-keys.ts`). A workspace's own
 * `.svc/settings.json` may not declare providers: an untrusted checkout could otherwise point a
 * key at a host of its choosing.
 *
 * MCP servers: `mcpServers` of the host's settings, and of the workspace's only while it is trusted
 * (`mcp-settings.ts`). The client budget the daemon forwards
 * (`SVC_SERVE_MCP_CLIENT_BUDGET`, mode `SVC_SERVE_MCP_BUDGET_MODE` = enforce|warn|off, default
 * enforce with a budget) caps how many servers are connected, refusing in declaration order.
 *
 * Output limit: every model request carries an output token limit, the `maxOutputTokens` of the
 * model's `model.providers[]` entry (a whole number, 1..MAX_OUTPUT_TOKENS_LIMIT), else
 * DEFAULT_MAX_OUTPUT_TOKENS (env-configured models too).
 *
 * Model stream stall: `model.streamIdleTimeoutMs` in the host's settings (whole milliseconds,
 * 1..3600000; default DEFAULT_STREAM_IDLE_TIMEOUT_MS): the longest wait for the next chunk of a
 * model's streamed answer before the turn fails.
 *
 * Hooks: `hooks` of both files, the workspace's honoured only while it is trusted (`hooks-config.ts`).
 *
 * Approval mode and disabled tools: `tools.approvalMode` and `tools.disabled` from the host's
 * settings, `--approval-mode`, and what the workspace's file may change given whether the folder
 * is trusted (`workspace-policy.ts`; the trust decision is the caller's, `src/trust/`). The daemon's
 * `POST /workspace/tools/:name/enable` writes `tools.disabled` sorted into the workspace's file. A
 * settings file that cannot be used is reported as a warning and ignored.
 */
import { join } from "node:path";
import { AGENT_KEYS_FD_VAR, keyVariableNames, type HandedProvider } from "./agent-keys.ts";
import type { ApprovalMode } from "./approval-modes.ts";
import { dataDirFor } from "./config.ts";
import { envModels, handedModels, settingsModels, type ModelEntry } from "./builtin-models.ts";
import { hooksSettings, type HooksSettings } from "./hooks-config.ts";
import { withAbsoluteSearchPath } from "./search-path.ts";
import { isSecretName } from "./secret-names.ts";
import { mcpServersFor, type McpServerConfig } from "./mcp-settings.ts";
import { objectAt, readSettingsDoc as readJson } from "./settings-doc.ts";
import { ignoredSettingsLine, workspacePolicy, workspaceSettingsFile, type IgnoredSetting } from "./workspace-policy.ts";

export { MAX_MCP_SERVERS, type McpServerConfig } from "./mcp-settings.ts";
export { APPROVAL_MODES, DEFAULT_APPROVAL_MODE, type ApprovalMode } from "./approval-modes.ts";
export { DEFAULT_CONTEXT_LIMIT, DEFAULT_MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS_LIMIT, PROVIDER_KINDS, type ModelEntry, type ProviderKind } from "./builtin-models.ts";


export type McpBudgetMode = "enforce" | "warn" | "off";

export interface McpBudget {
  /** Most servers connected; null = no budget. */
  readonly limit: number | null;
  readonly mode: McpBudgetMode;
}

export interface AgentConfig {
  readonly models: readonly ModelEntry[];
  /** The model new sessions start on; null when no model is configured. */
  readonly defaultModelId: string | null;
  /** What to set to get a model, for the error a prompt ends with when there is none. */
  readonly missingModelHint: string;
  /** The mode new sessions start in. */
  readonly approvalMode: ApprovalMode;
  /** `--approval-mode`, kept to work the mode out again when trust changes. */
  readonly approvalModeFlag: ApprovalMode | null;
  readonly trusted: boolean;
  /** Tool names not offered to the model (and refused if called); see the header for which file wins. */
  readonly disabledTools: readonly string[];
  /** What the workspace's settings asked for that was not applied. */
  readonly ignoredSettings: readonly IgnoredSetting[];
  readonly mcpServers: readonly McpServerConfig[];
  readonly mcpBudget: McpBudget;
  /** Hooks of both settings files (`hooks-config.ts`); the workspace's run only while it is trusted. */
  readonly hooks: HooksSettings;
  /** Longest silence between two chunks of a model's streamed answer; past it the turn fails. */
  readonly streamIdleTimeoutMs: number;
  /** Where conversations are saved: `<data dir>/agent/sessions`. */
  readonly conversationsDir: string;
  /** The data dir (the user's instruction files live there, `workspace/memory/`). */
  readonly dataDir: string;
  /**
   * The environment shell commands (and MCP stdio servers) run with: the agent's own minus the
   * scrub list (`secret-names.ts`) and every `apiKeyEnv` named in settings, so that a command the
   * model writes does not inherit them. It can still look elsewhere: see the README's "What a
   * command can reach".
   */
  readonly shellEnv: Readonly<Record<string, string>>;
  /** Problems with settings files, printed to stderr at start. */
  readonly warnings: readonly string[];
}

export interface AgentConfigInputs {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Model keys the daemon handed over outside the environment (`agent-keys.ts`); they win over `env`. */
  readonly keys?: Readonly<Record<string, string>>;
  /** Providers set up through the daemon's API, handed over with the keys; their models come first. */
  readonly providers?: readonly HandedProvider[];
  /** The workspace (the agent's cwd), canonical. */
  readonly workspace: string;
  /** Whether the workspace is trusted (decided by the caller, `src/trust/`). */
  readonly trusted: boolean;
  /** `--approval-mode`, or null. */
  readonly approvalModeFlag: ApprovalMode | null;
  readonly platform?: NodeJS.Platform;
  /** MCP servers the enabled extensions bring (read by the caller: config/ does not read extensions). */
  readonly extensionMcpServers?: readonly McpServerConfig[];
}

export const MISSING_MODEL_HINT =
  "No model is configured for the built-in agent: set OPENAI_MODEL with OPENAI_API_KEY (hosted) or OPENAI_BASE_URL (a local server such as Ollama: OPENAI_BASE_URL=http://127.0.0.1:11434/v1), " +
  "or OPENROUTER_API_KEY with OPENROUTER_MODEL, or DASHSCOPE_API_KEY with DASHSCOPE_MODEL, or ANTHROPIC_API_KEY with ANTHROPIC_MODEL, or GEMINI_API_KEY with GEMINI_MODEL, or declare model.providers in $SVC_HOME/settings.json, then restart the daemon";




/**
 * The MCP declarations read again (for an MCP reload, or a trust change), with their problems as
 * warnings. Same rules as at start (`mcp-settings.ts`).
 */
export function rereadMcpServers(inputs: Pick<AgentConfigInputs, "env" | "platform" | "workspace" | "trusted" | "extensionMcpServers">): { servers: McpServerConfig[]; warnings: string[] } {
  const warnings: string[] = [];
  const hostFile = join(dataDirFor(inputs.env, inputs.platform ?? process.platform), "settings.json");
  const workspaceFile = workspaceSettingsFile(inputs.workspace);
  const local = inputs.trusted ? readJson(workspaceFile, warnings) : {};
  const servers = mcpServersFor({ host: readJson(hostFile, warnings), hostFile, local, workspaceFile, trusted: inputs.trusted, extra: inputs.extensionMcpServers ?? [] }, warnings);
  return { servers, warnings };
}

function mcpBudgetOf(env: AgentConfigInputs["env"], warnings: string[]): McpBudget {
  const raw = env.SVC_SERVE_MCP_CLIENT_BUDGET;
  const limit = raw === undefined || raw === "" ? null : Number(raw);
  if (limit !== null && !(Number.isSafeInteger(limit) && limit >= 0)) {
    warnings.push("SVC_SERVE_MCP_CLIENT_BUDGET must be a whole number; no MCP budget applied");
    return { limit: null, mode: "off" };
  }
  const mode = env.SVC_SERVE_MCP_BUDGET_MODE || (limit === null ? "off" : "enforce");
  if (mode !== "enforce" && mode !== "warn" && mode !== "off") {
    warnings.push("SVC_SERVE_MCP_BUDGET_MODE must be enforce, warn or off; enforce applied");
    return { limit, mode: "enforce" };
  }
  return { limit, mode };
}

export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
const MAX_STREAM_IDLE_TIMEOUT_MS = 3_600_000;

function streamIdleTimeoutOf(file: string, doc: Record<string, unknown>, warnings: string[]): number {
  const value = objectAt(doc, "model").streamIdleTimeoutMs;
  if (value === undefined) return DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  if (Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_STREAM_IDLE_TIMEOUT_MS) return value as number;
  warnings.push(`${file}: model.streamIdleTimeoutMs must be a whole number from 1 to ${MAX_STREAM_IDLE_TIMEOUT_MS}; ${DEFAULT_STREAM_IDLE_TIMEOUT_MS} applied`);
  return DEFAULT_STREAM_IDLE_TIMEOUT_MS;
}

export function resolveAgentConfig(inputs: AgentConfigInputs): AgentConfig {
  const { env, workspace } = inputs;
  const withKeys = { ...env, ...inputs.keys };
  const warnings: string[] = [];
  const dataDir = dataDirFor(env, inputs.platform ?? process.platform);
  const hostFile = join(dataDir, "settings.json");
  const workspaceFile = workspaceSettingsFile(workspace);
  const host = readJson(hostFile, warnings);
  const local = readJson(workspaceFile, warnings);
  const { trusted, approvalModeFlag } = inputs;
  const policy = workspacePolicy({ host, local, hostFile, workspaceFile, trusted, approvalModeFlag }, warnings);
  const ignoredLine = ignoredSettingsLine(workspace, policy.ignored);
  if (ignoredLine !== null) warnings.push(ignoredLine);

  const models = [...handedModels(inputs.providers ?? []), ...envModels(withKeys), ...settingsModels(hostFile, host, withKeys, warnings)];
  const unique = models.filter((m, i) => models.findIndex((o) => o.id === m.id) === i);
  const preferred = objectAt(host, "model").name;
  const defaultModelId = unique.find((m) => m.id === preferred || m.model === preferred)?.id ?? unique[0]?.id ?? null;

  const keyNames = keyVariableNames(host);
  const shellEnv = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== AGENT_KEYS_FD_VAR && !isSecretName(e[0]) && !keyNames.has(e[0])),
  );
  return Object.freeze({
    models: unique,
    defaultModelId,
    missingModelHint: MISSING_MODEL_HINT,
    approvalMode: policy.approvalMode,
    approvalModeFlag,
    trusted,
    disabledTools: policy.disabledTools,
    ignoredSettings: policy.ignored,
    mcpServers: mcpServersFor({ host, hostFile, local, workspaceFile, trusted, extra: inputs.extensionMcpServers ?? [] }, warnings),
    mcpBudget: mcpBudgetOf(env, warnings),
    hooks: hooksSettings({ host, hostFile, local, workspaceFile }, warnings),
    streamIdleTimeoutMs: streamIdleTimeoutOf(hostFile, host, warnings),
    conversationsDir: join(dataDir, "agent", "sessions"),
    dataDir,
    // Commands and the tools' helper programs search PATH's absolute entries only, never the workspace.
    shellEnv: withAbsoluteSearchPath(shellEnv),
    warnings,
  });
}
