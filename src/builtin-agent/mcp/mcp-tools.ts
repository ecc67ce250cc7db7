/**
 * MCP tools as agent tools: `mcp__<server>__<tool>`, in the `execute` class of the approval table
 * (an MCP tool can do anything its server can: it asks in `default`, `auto-edit` and `auto`, runs
 * in `yolo`, and is refused in `plan`).
 *
 * Names are the model's only handle on a tool, so no two tools share one. Tools whose plain names
 * meet (server `a` with tool `b__c` and server `a__b` with tool `c`; `my.srv` and `my_srv`; names
 * cut at 64 characters) all go by a distinct name instead, whichever server came first: the plain
 * name cut short and a hash of the real server and tool. What the user decides about a tool follows
 * the tool, not its name: `proceed_always` is remembered for the real server and tool, and
 * disabling either of a tool's names (`disableNames`) disables it, so a server that appears later
 * and takes a name over, or gives one back, never inherits an approval or escapes a toggle.
 */
import { createHash } from "node:crypto";
import { BUILTIN_TOOLS } from "../tools/registry.ts";
import { textContent, ToolInputError, type AgentTool } from "../tools/tool.ts";
import type { McpServers, McpToolInfo } from "./mcp-servers.ts";

/** Model-facing tool names allow letters, digits, `_` and `-`, at most 64 characters. */
const MAX_NAME_CHARS = 64;
const plainName = (t: McpToolInfo) => `mcp__${t.server}__${t.name}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_NAME_CHARS);
/** The plain name cut short, `_`, and 8 hex digits of the SHA-256 of the server and tool names. */
const distinctName = (t: McpToolInfo) =>
  `${plainName(t).slice(0, MAX_NAME_CHARS - 9)}_${createHash("sha256").update(`${t.server}\0${t.name}`).digest("hex").slice(0, 8)}`;

/** An MCP tool offered as `name`; either of its names, disabled, disables it. */
export function mcpTool(servers: McpServers, info: McpToolInfo, name: string): AgentTool {
  return {
    name,
    disableNames: [plainName(info), distinctName(info)],
    description: `${info.description} (MCP server ${info.server})`.trim(),
    parameters: info.inputSchema,
    kind: "other",
    toolClass: "execute",
    async prepare(args) {
      if (args === null || typeof args !== "object") throw new ToolInputError("the arguments must be an object");
      return {
        title: `${info.server}: ${info.name}`,
        alwaysScope: { key: `mcp\0${info.server}\0${info.name}`, label: `Always allow ${info.name} from MCP server ${info.server}` },
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

/**
 * The built-in tools and every discovered MCP tool, by name (built-in names never start with
 * `mcp__`). A plain name two MCP tools share is given up by all of them for their distinct names; a
 * tool whose name is taken all the same (only a tool named after another's distinct name gets
 * there) is left out.
 */
export function allTools(servers: McpServers): ReadonlyMap<string, AgentTool> {
  const infos = servers.tools();
  const sharing = new Map<string, number>();
  for (const info of infos) sharing.set(plainName(info), (sharing.get(plainName(info)) ?? 0) + 1);
  const tools = new Map(BUILTIN_TOOLS);
  for (const info of infos) {
    const plain = plainName(info);
    const name = sharing.get(plain) === 1 ? plain : distinctName(info);
    if (!tools.has(name)) tools.set(name, mcpTool(servers, info, name));
  }
  return tools;
}

/** Is this tool disabled: by its name, or by another name it goes or went by? */
export function isDisabled(tool: AgentTool, disabled: ReadonlySet<string>): boolean {
  return disabled.has(tool.name) || (tool.disableNames?.some((name) => disabled.has(name)) ?? false);
}

/** The tools a model round may use: those not disabled; `disabled` names the rest (a call to one is refused). */
export interface ToolSet {
  readonly enabled: ReadonlyMap<string, AgentTool>;
  readonly disabled: ReadonlySet<string>;
}

export function toolSet(servers: McpServers, disabled: ReadonlySet<string>): ToolSet {
  const tools = [...allTools(servers)];
  const off = tools.filter(([, tool]) => isDisabled(tool, disabled)).map(([name]) => name);
  return { enabled: new Map(tools.filter(([, tool]) => !isDisabled(tool, disabled))), disabled: new Set([...disabled, ...off]) };
}
