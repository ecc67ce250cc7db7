/** The built-in tools offered to the model, by name. */
import { editTool, writeFileTool } from "./edit-tools.ts";
import { grepTool } from "./grep-tool.ts";
import { planTool } from "./plan-tool.ts";
import { globTool, listDirectoryTool, readFileTool } from "./read-tools.ts";
import { shellTool } from "./shell-tool.ts";
import { taskTool } from "../subagents/task-tool.ts";
import type { AgentTool } from "./tool.ts";

export const BUILTIN_TOOLS: ReadonlyMap<string, AgentTool> = new Map(
  [readFileTool, writeFileTool, editTool, listDirectoryTool, globTool, grepTool, shellTool, planTool, taskTool].map((t) => [t.name, t]),
);
