/**
 * Subagent definitions (`definition.ts`: the file format; `agent-files.ts`: where they are read,
 * bounded; `agent-draft.ts` and `agent-writer.ts`: what the create, update and delete routes take
 * and write). The seam the daemon's `/workspace/agents` routes load on first use; the built-in
 * agent's `task` tool reads the same files.
 */
export { createAgent, deleteAgent, findWritable, readonly, updateAgent, type WritableLevel, type WriteWhere } from "./agent-writer.ts";
export { readFields, readName, type AgentFields, type AgentUpdates } from "./agent-draft.ts";
export { listAgents, listLevel, loadAgent, MAX_AGENT_FILE_BYTES, MAX_AGENT_FILES, PROJECT_AGENT_DIRS, type AgentListing, type AgentProblem, type AgentsWhere } from "./agent-files.ts";
export { AGENT_TYPE_PATTERN, DefinitionError, GENERAL_PURPOSE, parseDefinition, validAgentType, type AgentDefinition, type AgentLevel } from "./definition.ts";
