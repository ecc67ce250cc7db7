/**
 * Subagents of the built-in agent: the `task` tool (`task-tool.ts`), the nested run it starts
 * (`run-subagent.ts`), and the drafting of a definition (`generate-method.ts`). Definitions are read
 * from `workspace/agents/`, the files the daemon's `/workspace/agents` routes list.
 */
import type { AgentConfig } from "../../config/agent-config.ts";
import type { ModelClient } from "../model/provider.ts";
import type { SubagentHost } from "./run-subagent.ts";

export { registerAgentGenerateMethod } from "./generate-method.ts";
export type { SubagentHost } from "./run-subagent.ts";

/** The host turns use: definitions from the workspace (while trusted) and the data dir; a definition's model by id or model name. */
export function subagentHost(deps: { config: AgentConfig; workspace: string; trusted: () => boolean; modelFor: (id: string) => Promise<ModelClient> }): SubagentHost {
  return {
    where: () => ({ workspace: deps.workspace, dataDir: deps.config.dataDir, trusted: deps.trusted() }),
    async model(name) {
      const entry = deps.config.models.find((m) => m.id === name) ?? deps.config.models.find((m) => m.model === name);
      if (!entry) return null;
      return { model: await deps.modelFor(entry.id), modelId: entry.id, maxOutputTokens: entry.maxOutputTokens, contextLimit: entry.contextLimit };
    },
  };
}
