/**
 * Subagent definitions (`definition.ts`: the file format; `agent-files.ts`: where they are read,
 * bounded). The seam the daemon's `/workspace/agents` routes load on first use; the built-in
 * agent's `task` tool reads the same files.
 */
export { listAgents, loadAgent, MAX_AGENT_FILE_BYTES, MAX_AGENT_FILES, PROJECT_AGENT_DIRS, type AgentListing, type AgentProblem, type AgentsWhere } from "./agent-files.ts";
export { AGENT_TYPE_PATTERN, DefinitionError, GENERAL_PURPOSE, parseDefinition, validAgentType, type AgentDefinition, type AgentLevel } from "./definition.ts";
