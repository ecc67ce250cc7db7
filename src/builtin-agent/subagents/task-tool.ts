/**
 * `task`: the model hands a piece of work to a subagent (`run-subagent.ts`) and reads its final
 * report as the result. The arguments are the reference's (`description`, `prompt`,
 * `subagent_type`). The call itself asks nothing (class `read`): each tool call the subagent makes
 * goes through the parent's approval mode and permission asks like the parent's own.
 */
import { stringArg, ToolInputError, type AgentTool } from "../tools/tool.ts";

/** Longest task prompt the model may hand over. */
export const MAX_TASK_PROMPT_CHARS = 64 * 1024;
export const TASK_TOOL_NAME = "task";

export interface SubagentRequest {
  readonly description: string;
  readonly prompt: string;
  readonly subagentType: string;
}

export const taskTool: AgentTool = {
  name: TASK_TOOL_NAME,
  description:
    "Launch a subagent to handle a self-contained task with its own conversation. It gets the tools its definition allows (never more than yours) and answers with one final report, which is all you see. subagent_type names a definition (GET /workspace/agents; `general-purpose` always exists).",
  parameters: {
    type: "object",
    properties: {
      description: { type: "string", description: "A short (3-5 word) description of the task" },
      prompt: { type: "string", description: "The task for the subagent, complete: it does not see this conversation" },
      subagent_type: { type: "string", description: "The definition to use (default general-purpose)" },
    },
    required: ["description", "prompt"],
    additionalProperties: false,
  },
  kind: "think",
  toolClass: "read",
  async prepare(args, context) {
    const description = stringArg(args, "description").trim().slice(0, 200);
    const prompt = stringArg(args, "prompt");
    const subagentType = stringArg(args, "subagent_type", true) ?? "general-purpose";
    if (prompt.trim() === "") throw new ToolInputError("argument prompt must not be empty");
    if (prompt.length > MAX_TASK_PROMPT_CHARS) throw new ToolInputError(`argument prompt must be at most ${MAX_TASK_PROMPT_CHARS} characters`);
    const run = context.runSubagent;
    if (!run) throw new ToolInputError("a subagent cannot start another subagent");
    return {
      title: `${subagentType}: ${description || "task"}`,
      run: (ctx) => run(ctx.toolCallId ?? "", { description, prompt, subagentType }),
    };
  },
};
