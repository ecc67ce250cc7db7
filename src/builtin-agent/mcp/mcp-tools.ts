/**
 * MCP tools as agent tools: `mcp__<server>__<tool>`, in the `execute` class of the approval table
 * (an MCP tool can do anything its server can: it asks in `default`, `auto-edit` and `auto`, runs
 * in `yolo`, and is refused in `plan`).
 */
import { BUILTIN_TOOLS } from "../tools/registry.ts";
import { textContent, ToolInputError, type AgentTool } from "../tools/tool.ts";
import type { McpServers, McpToolInfo } from "./mcp-servers.ts";

/** Model-facing tool names allow letters, digits, `_` and `-`, at most 64 characters. */
const toolName = (t: McpToolInfo) => `mcp__${t.server}__${t.name}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);

export function mcpTool(servers: McpServers, info: McpToolInfo): AgentTool {
  return {
    name: toolName(info),
    description: `${info.description} (MCP server ${info.server})`.trim(),
    parameters: info.inputSchema,
    kind: "other",
    toolClass: "execute",
    async prepare(args) {
      if (args === null || typeof args !== "object") throw new ToolInputError("the arguments must be an object");
      return {
        title: `${info.server}: ${info.name}`,
        preview: [textContent(`MCP ${info.server}.${info.name} ${JSON.stringify(args)}`)],
        async run({ signal }) {
          const result = await servers.call(info.server, info.name, args, signal);
          if (result.isError) throw new Error(result.text || "the MCP tool reported an error");
          return { text: result.text, content: [textContent(result.text)] };
        },
      };
    },
  };
}

/** The built-in tools and every discovered MCP tool, by name (a built-in name is never shadowed). */
export function allTools(servers: McpServers): ReadonlyMap<string, AgentTool> {
  const tools = new Map(BUILTIN_TOOLS);
  for (const info of servers.tools()) {
    const tool = mcpTool(servers, info);
    if (!tools.has(tool.name)) tools.set(tool.name, tool);
  }
  return tools;
}

/** The tools a model round may use: those not disabled; `disabled` names the rest (a call to one is refused). */
export interface ToolSet {
  readonly enabled: ReadonlyMap<string, AgentTool>;
  readonly disabled: ReadonlySet<string>;
}

export function toolSet(servers: McpServers, disabled: ReadonlySet<string>): ToolSet {
  return { enabled: new Map([...allTools(servers)].filter(([name]) => !disabled.has(name))), disabled };
}
