/**
 * todo_write: the model's task list, published to the client as an ACP `plan` update. Bounded:
 * at most MAX_ENTRIES entries (more is refused), each cut to PLAN_ENTRY_BYTES.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { boundPlanEntry } from "../acp-bounds.ts";
import { ToolInputError, type AgentTool } from "./tool.ts";

/** Entries in one plan. */
export const MAX_ENTRIES = 100;
const STATUSES = new Set(["pending", "in_progress", "completed"]);
const PRIORITIES = new Set(["high", "medium", "low"]);

function entriesOf(args: Record<string, unknown>): acp.PlanEntry[] {
  const todos = args.todos;
  if (!Array.isArray(todos) || todos.length > MAX_ENTRIES) throw new ToolInputError(`todos must be an array of at most ${MAX_ENTRIES} items`);
  return todos.map((t: unknown, i) => {
    const item = (t ?? {}) as Record<string, unknown>;
    if (typeof item.content !== "string" || item.content.trim() === "") throw new ToolInputError(`todos[${i}].content must be a non-empty string`);
    const status = item.status ?? "pending";
    const priority = item.priority ?? "medium";
    if (!STATUSES.has(status as string)) throw new ToolInputError(`todos[${i}].status must be pending, in_progress or completed`);
    if (!PRIORITIES.has(priority as string)) throw new ToolInputError(`todos[${i}].priority must be high, medium or low`);
    return { content: boundPlanEntry(item.content), status, priority } as acp.PlanEntry;
  });
}

export const planTool: AgentTool = {
  name: "todo_write",
  description: "Replace the session's task list (shown to the user as the plan). Each todo: {content, status: pending|in_progress|completed, priority?: high|medium|low}.",
  parameters: {
    type: "object",
    properties: {
      todos: {
        type: "array",
        items: {
          type: "object",
          properties: { content: { type: "string" }, status: { type: "string", enum: ["pending", "in_progress", "completed"] }, priority: { type: "string", enum: ["high", "medium", "low"] } },
          required: ["content"],
        },
      },
    },
    required: ["todos"],
  },
  kind: "think",
  toolClass: "read",
  async prepare(args) {
    const entries = entriesOf(args);
    return {
      title: "Update plan",
      async run({ publishPlan }) {
        await publishPlan(entries);
        return { text: `Plan updated (${entries.length} items)`, rawOutput: { entries: entries.length } };
      },
    };
  },
};
