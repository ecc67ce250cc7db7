/**
 * A subagent run, the body of the `task` tool: a nested turn (`turn.ts`) with the definition's
 * system prompt, in a conversation of its own (nothing of the parent's history), on the parent's
 * session. What it may do is never more than the parent may:
 * - its tools are the parent's tools of this round, cut to the definition's allow-list and minus
 *   its disallowed ones, and never `task` (no nesting);
 * - it shares the parent session's approval mode (read live), "always" answers, tool hooks and
 *   statistics (its task prompt is not counted as a prompt), and its permission asks go to the
 *   same client under the parent's session id;
 * - it is cancelled with the parent's turn (the same signal), takes at most the definition's
 *   `maxTurns` (else MAX_SUBAGENT_ROUNDS) model rounds, and its conversation has the session's
 *   byte bounds and compaction.
 * Every update it sends carries `_meta.parentToolCallId` (the `task` call's id as the client sees
 * it) and `_meta.subagentType`, as Qwen Code nests a subagent's updates under its parent call; the
 * daemon reads them back from the journal (`GET /session/:id/subagents/:ref`). The tool's result is
 * the subagent's last reply.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { listAgents, type AgentDefinition, type AgentsWhere } from "../../workspace/agents/index.ts";
import { AgentSession } from "../agent-session.ts";
import type { ModelClient } from "../model/provider.ts";
import type { ToolSet } from "../mcp/mcp-tools.ts";
import type { ToolOutcome } from "../tools/tool.ts";
import type { TurnDeps } from "../turn.ts";
import { TASK_TOOL_NAME, type SubagentRequest } from "./task-tool.ts";

/** Model rounds of a subagent whose definition sets no `maxTurns`. */
export const MAX_SUBAGENT_ROUNDS = 25;

export interface SubagentModel {
  readonly model: ModelClient;
  readonly modelId: string;
  readonly maxOutputTokens: number;
  readonly contextLimit: number;
}

/** What the agent gives turns so they can run subagents. */
export interface SubagentHost {
  /** Where the definitions are read, with the workspace's trust now. */
  where(): AgentsWhere;
  /** A configured model by id or model name, or null. */
  model(name: string): Promise<SubagentModel | null>;
}

type RunTurn = (deps: TurnDeps, prompt: acp.ContentBlock[]) => Promise<acp.PromptResponse>;

/** The tools a subagent of `definition` may use: the parent's, cut as the header says. */
export function subagentTools(parent: ToolSet, definition: AgentDefinition): ToolSet {
  const allowed = definition.tools ? new Set(definition.tools) : null;
  const denied = new Set(definition.disallowedTools ?? []);
  const enabled = new Map([...parent.enabled].filter(([name]) => name !== TASK_TOOL_NAME && (allowed === null || allowed.has(name)) && !denied.has(name)));
  return { enabled, disabled: parent.disabled };
}

/** `client` with every session update, and every permission ask's tool call, marked as the subagent's. */
function nestedClient(client: acp.AgentContext, meta: { parentToolCallId: string; subagentType: string }): acp.AgentContext {
  const mark = (fields: { _meta?: Record<string, unknown> | null }) => ({ ...fields, _meta: { ...(fields._meta ?? {}), ...meta } });
  return new Proxy(client, {
    get(target, prop) {
      if (prop === "notify")
        return (method: string, params: { update?: { _meta?: Record<string, unknown> | null } }) =>
          target.notify(method as never, (method === "session/update" && params.update ? { ...params, update: mark(params.update) } : params) as never);
      if (prop === "request")
        return (method: string, params: { toolCall?: { _meta?: Record<string, unknown> | null } }, options?: unknown) =>
          target.request(method as never, (method === "session/request_permission" && params.toolCall ? { ...params, toolCall: mark(params.toolCall) } : params) as never, options as never);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A session for the subagent: its own conversation, the parent's id, mode, "always" answers and stats. */
function childSession(parent: AgentSession, modelId: string): AgentSession {
  const child = new AgentSession(parent.id, parent.cwd, parent.mode, modelId, () => {});
  Object.defineProperty(child, "mode", { get: () => parent.mode, set: () => {} });
  Object.defineProperty(child, "alwaysAllowed", { value: parent.alwaysAllowed });
  // Its model requests and tool calls count for the session; its task prompt is not a user prompt.
  const stats = new Proxy(parent.stats, {
    get: (target, prop) => {
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
    set: (target, prop, value) => prop === "prompts" || Reflect.set(target, prop, value, target),
  });
  Object.defineProperty(child, "stats", { value: stats });
  child.outputLanguage = parent.outputLanguage;
  return child;
}

const lastReply = (history: readonly LanguageModelV4Message[]): string => {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== "assistant") continue;
    const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    if (text !== "") return text;
  }
  return "";
};

export async function runSubagent(parent: TurnDeps, runTurn: RunTurn, host: SubagentHost, parentToolCallId: string, request: SubagentRequest): Promise<ToolOutcome> {
  const { agents } = await listAgents(host.where());
  const definition = agents.find((a) => a.name === request.subagentType);
  if (!definition) return { text: `no subagent named "${request.subagentType}"; the subagents are ${agents.map((a) => a.name).join(", ")}` };
  const chosen = (definition.model ? await host.model(definition.model) : null) ?? { model: parent.model, modelId: parent.modelId, maxOutputTokens: parent.maxOutputTokens, contextLimit: parent.contextLimit };
  const session = childSession(parent.session, chosen.modelId);
  const tools = subagentTools(parent.toolbox(), definition);
  const started = performance.now();
  const response = await runTurn(
    {
      ...parent,
      ...chosen,
      client: nestedClient(parent.client, { parentToolCallId, subagentType: definition.name }),
      session,
      toolbox: () => subagentTools(parent.toolbox(), definition),
      system: `${definition.systemPrompt}\n\nWorking directory: ${parent.session.cwd}. Your final message is your report to the agent that started you.`,
      maxRounds: definition.maxTurns ?? MAX_SUBAGENT_ROUNDS,
      subagents: null,
      hooks: parent.hooks ? { opening: async () => ({}), tool: parent.hooks.tool } : null,
      promptId: undefined,
    },
    [{ type: "text", text: request.prompt }],
  );
  const reply = lastReply(session.history);
  const usage = (response._meta as { usage?: Record<string, number> } | undefined)?.usage ?? {};
  const rawOutput = { subagentType: definition.name, stopReason: response.stopReason, status: response.stopReason === "cancelled" ? "cancelled" : "completed", durationMs: Math.round(performance.now() - started), tools: [...tools.enabled.keys()], ...usage };
  const note = response.stopReason === "end_turn" ? "" : `\n[subagent stopped: ${response.stopReason}]`;
  return { text: `${reply || "(the subagent gave no reply)"}${note}`, content: [{ type: "content", content: { type: "text", text: reply } }], rawOutput };
}
