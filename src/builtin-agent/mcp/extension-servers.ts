/**
 * The MCP servers extensions bring (`extensions/extension-contributions.ts`, each with its
 * `extensionName`, shown in `/workspace/mcp`), merged with those of the settings files: a settings
 * file's declaration wins over an extension's of the same name (the operator's word is last), and
 * the whole list is held to MAX_MCP_SERVERS (settings first, then extensions in the order given).
 * The result is what `McpServers` takes at start and on a reload.
 */
import { MAX_MCP_SERVERS, type McpServerConfig } from "../../config/mcp-settings.ts";

export function withExtensionServers(declared: readonly McpServerConfig[], fromExtensions: readonly McpServerConfig[]): McpServerConfig[] {
  const taken = new Set(declared.map((s) => s.name));
  const out = [...declared];
  for (const server of fromExtensions) {
    if (taken.has(server.name)) continue;
    taken.add(server.name);
    out.push(server);
  }
  return out.slice(0, MAX_MCP_SERVERS);
}
