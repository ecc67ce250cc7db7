/**
 * The client's workspace configuration calls (spread into `createClient`'s client): memory,
 * hooks, language, skill toggles, MCP restart and server settings, subagents and extensions, on
 * the daemon's primary workspace. Every change is a strict route (it needs the daemon's bearer
 * token). A daemon without a route answers 404 (or 501 where the agent lacks the method): the
 * `DaemonApiError` says which.
 */
import type {
  AgentDetail,
  AgentList,
  ExtensionOperation,
  ExtensionsStatus,
  GeneratedAgent,
  HooksStatus,
  McpConfigAnswer,
  McpConfigStatus,
  McpRestartAnswer,
  McpServerConfig,
  MemoryStatus,
  MemoryWrite,
  MemoryWriteAnswer,
  SessionHooks,
  SessionLanguageAnswer,
  SkillToggleAnswer,
  UserLanguageAnswer,
} from "./settings-types.ts";

type Call = <T>(path: string, o?: { method?: string; body?: unknown; query?: Record<string, string | undefined>; session?: string }) => Promise<T>;

const enc = encodeURIComponent;

export function settingsCalls(call: Call) {
  return {
    /** The instruction files of the user and the project, with sizes, in prompt order. */
    memory: () => call<MemoryStatus>("/workspace/memory"),
    /** Appends to or replaces the user's (`global`) or the project's (`workspace`) AGENTS.md. */
    writeMemory: (write: MemoryWrite) => call<MemoryWriteAnswer>("/workspace/memory", { method: "POST", body: write }),
    /** The hooks of the settings files (never their commands). */
    workspaceHooks: () => call<HooksStatus>("/workspace/hooks"),
    /** A live session's own hooks. */
    sessionHooks: (sessionId: string) => call<SessionHooks>(`/session/${enc(sessionId)}/hooks`, { session: sessionId }),
    /** Sets the user's language, saved and told to every live agent; `syncOutputLanguage` makes it the reply language too. */
    setLanguage: (language: string, syncOutputLanguage = true) => call<UserLanguageAnswer>("/language", { method: "POST", body: { language, syncOutputLanguage } }),
    /** Sets one session's reply language. */
    setSessionLanguage: (sessionId: string, language: string, syncOutputLanguage = true) =>
      call<SessionLanguageAnswer>(`/session/${enc(sessionId)}/language`, { method: "POST", body: { language, syncOutputLanguage }, session: sessionId }),
    /** Enables or disables a skill (501 when the agent has no skill settings). */
    toggleSkill: (name: string, enabled: boolean) => call<SkillToggleAnswer>(`/workspace/skills/${enc(name)}/enable`, { method: "POST", body: { enabled } }),
    /** Has the agent restart one MCP server. */
    restartMcpServer: (name: string) => call<McpRestartAnswer>(`/workspace/mcp/${enc(name)}/restart`, { method: "POST" }),
    /** The MCP server settings (user, workspace, merged), secrets redacted. */
    mcpConfig: () => call<McpConfigStatus>("/workspace/config/mcp/servers"),
    /** Adds or replaces one user-level MCP server; a secret sent as `REDACTED_SECRET` keeps its stored value. */
    putMcpServer: (name: string, config: McpServerConfig) => call<McpConfigAnswer>(`/workspace/config/mcp/servers/${enc(name)}`, { method: "PUT", body: { scope: "user", config } }),
    removeMcpServer: (name: string) => call<McpConfigAnswer>(`/workspace/config/mcp/servers/${enc(name)}`, { method: "DELETE", query: { scope: "user" } }),
    /** The subagent definitions. */
    agents: () => call<AgentList>("/workspace/agents"),
    agent: (agentType: string) => call<AgentDetail>(`/workspace/agents/${enc(agentType)}`),
    /** Has the model draft a definition from a description (at most 4096 bytes); nothing is saved. */
    generateAgent: (description: string) => call<GeneratedAgent>("/workspace/agents/generate", { method: "POST", body: { description } }),
    /** The installed extensions and whether each is active in this workspace. */
    extensions: () => call<ExtensionsStatus>("/workspace/extensions"),
    /** Activates or deactivates an extension (at user level); the change may run as an operation. */
    setExtensionActive: (name: string, active: boolean) =>
      call<ExtensionOperation>(`/workspace/extensions/${enc(name)}/${active ? "enable" : "disable"}`, { method: "POST", body: { scope: "user" } }),
  };
}
