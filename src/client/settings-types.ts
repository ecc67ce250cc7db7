/**
 * Shapes of the workspace configuration routes (issue 26): memory, hooks, language, subagents, MCP
 * server settings and extensions, as the reference daemon answers them. Open where the reference
 * adds members over time (`[more: string]: unknown`).
 */
import type { StatusCell } from "./types.ts";

export type MemoryScope = "workspace" | "global";

/** One instruction file `GET /workspace/memory` found (`global`: the user's, in the data dir). */
export interface MemoryFile {
  kind: "memory_file";
  path: string;
  scope: MemoryScope;
  bytes: number;
}

export interface MemoryStatus {
  v: number;
  workspaceCwd: string;
  initialized: boolean;
  /** In the order the built-in agent's system prompt takes them. */
  files: MemoryFile[];
  totalBytes: number;
  fileCount: number;
  errors?: StatusCell[];
}

export interface MemoryWrite {
  scope: MemoryScope;
  /** `append` (the daemon's default) adds under "## Added Memories"; `replace` writes the whole file. */
  mode?: "append" | "replace";
  content: string;
}

export interface MemoryWriteAnswer {
  ok: true;
  filePath: string;
  bytesWritten: number;
  mode: "append" | "replace";
  changed: boolean;
}

/** A hook as the daemon shows it: never its command. */
export interface HookCell {
  kind: "hook";
  eventName?: string;
  config: { type?: string; name?: string; description?: string; timeout?: number };
  source?: string;
  matcher?: string;
  enabled: boolean;
  disabledReason?: string;
  hookId?: string;
}

export interface HooksStatus {
  v: number;
  workspaceCwd: string;
  initialized?: boolean;
  disabled: boolean;
  hooks: HookCell[];
  errors?: StatusCell[];
}

export interface SessionHooks extends HooksStatus {
  sessionId: string;
}

export interface UserLanguageAnswer {
  language: string;
  outputLanguage: string | null;
  refresh: { runtimes: number; sessions: number; failed: number };
}

export interface SessionLanguageAnswer {
  language: string;
  outputLanguage: string | null;
  refreshed: boolean;
}

export interface SkillToggleAnswer {
  skillName: string;
  enabled: boolean;
  changed?: boolean;
  [more: string]: unknown;
}

export interface McpRestartAnswer {
  serverName: string;
  [more: string]: unknown;
}

/**
 * An MCP server's settings (`mcpServers.<name>`): stdio (`command`, `args`, `env`) or remote
 * (`url`/`httpUrl`, `headers`). Secret values come back as `REDACTED_SECRET`; sent back unchanged
 * they keep the stored value.
 */
export interface McpServerConfig {
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  url?: string;
  httpUrl?: string;
  headers?: Record<string, string>;
  timeout?: number;
  trust?: boolean;
  description?: string;
  [more: string]: unknown;
}

/** What the daemon answers in place of a stored secret (the reference's marker). */
export const REDACTED_SECRET = "__redacted__";

/** `GET /workspace/config/mcp/servers`: the user's, the workspace's and the merged server settings (secrets redacted). */
export interface McpConfigStatus {
  v: number;
  effective: Record<string, McpServerConfig>;
  user: Record<string, McpServerConfig>;
  workspace: Record<string, McpServerConfig>;
}

export interface McpConfigAnswer {
  name: string;
  scope: string;
  config?: McpServerConfig;
  activation?: string;
  [more: string]: unknown;
}

/** A subagent definition's summary (`GET /workspace/agents`). */
export interface AgentSummary {
  kind: "agent";
  name: string;
  description: string;
  level: string;
  isBuiltin: boolean;
  hasTools: boolean;
  tools?: string[];
  model?: string;
  filePath?: string;
  extensionName?: string;
  [more: string]: unknown;
}

export interface AgentDetail extends AgentSummary {
  systemPrompt: string;
}

export interface AgentList {
  v: number;
  workspaceCwd: string;
  agents: AgentSummary[];
}

/** A drafted definition (`POST /workspace/agents/generate`): the model's proposal, not saved. */
export interface GeneratedAgent {
  name?: string;
  description?: string;
  systemPrompt?: string;
  [more: string]: unknown;
}

export interface ExtensionEntry {
  kind: "extension";
  id: string;
  name: string;
  displayName?: string;
  description?: string;
  version: string;
  isActive: boolean;
  source?: string;
  installType?: string;
  capabilities?: Record<string, number | boolean>;
  [more: string]: unknown;
}

export interface ExtensionsStatus {
  v: number;
  workspaceCwd: string;
  initialized: boolean;
  extensions: ExtensionEntry[];
  errors?: StatusCell[];
}

/** A long extension change, tracked as an operation (`…/operations/:id`). */
export interface ExtensionOperation {
  operationId?: string;
  id?: string;
  status?: string;
  [more: string]: unknown;
}
