/**
 * MCP servers an extension brings, merged with those of the settings files: a settings file's
 * declaration wins over an extension's of the same name (the operator's word is last), an
 * extension's server carries `extensionName` (shown in `/workspace/mcp`), and the whole list is
 * held to MAX_MCP_SERVERS (settings first, then extensions in the order given). An extension's raw
 * `mcpServers` object is read with `mcpServersOf` (`config/mcp-settings.ts`), the settings files'
 * rules. The result is what `McpServers` takes at start and on a reload.
 */
import { MAX_MCP_SERVERS, type McpServerConfig } from "../../config/mcp-settings.ts";

export interface ExtensionMcpServers {
  readonly extensionName: string;
  readonly servers: readonly McpServerConfig[];
}

export function withExtensionServers(declared: readonly McpServerConfig[], extensions: readonly ExtensionMcpServers[]): McpServerConfig[] {
  const taken = new Set(declared.map((s) => s.name));
  const out = [...declared];
  for (const { extensionName, servers } of extensions)
    for (const server of servers) {
      if (taken.has(server.name)) continue;
      taken.add(server.name);
      out.push({ ...server, extensionName });
    }
  return out.slice(0, MAX_MCP_SERVERS);
}
