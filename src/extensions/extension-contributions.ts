/**
 * What the enabled extensions bring the built-in agent besides skills (those are read by
 * `builtin-agent/skills/extension-sources.ts`): their instruction files (`contextFileName`), and
 * their MCP servers as declarations the agent adds to its own. Extensions are the user's (installed
 * under the data dir), so both count in any workspace.
 */
import { lstatSync } from "node:fs";
import type { McpServerConfig } from "../config/agent-config.ts";
import { readSmallFileSync } from "../workspace/contained-fs.ts";
import { enabledExtensions } from "./extension-store.ts";

/** Bytes of one extension instruction file given to the model, and of all of them. */
export const MAX_CONTEXT_FILE_BYTES = 32 * 1024;
export const MAX_CONTEXT_TOTAL_BYTES = 64 * 1024;

export interface ExtensionContextFile {
  readonly extension: string;
  readonly path: string;
  readonly text: string;
  /** The file's size. */
  readonly bytes: number;
  readonly truncated: boolean;
}

/** The enabled extensions' instruction files, in extension order, bounded; a missing one is skipped. */
export function extensionContextFiles(dataDir: string): ExtensionContextFile[] {
  const out: ExtensionContextFile[] = [];
  let left = MAX_CONTEXT_TOTAL_BYTES;
  for (const ext of enabledExtensions(dataDir))
    for (const file of ext.manifest.contextFiles) {
      if (left <= 0) return out;
      const bytes = readSmallFileSync(ext.path, ext.path, file, Math.min(MAX_CONTEXT_FILE_BYTES, left) + 1);
      if (bytes === null) continue;
      const cap = Math.min(MAX_CONTEXT_FILE_BYTES, left);
      const text = bytes.subarray(0, cap).toString("utf8").replace(/\uFFFD$/, "");
      left -= Math.min(bytes.length, cap);
      const path = `${ext.path}/${file}`;
      out.push({ extension: ext.name, path, text, bytes: bytes.length > cap ? lstatSync(path).size : bytes.length, truncated: bytes.length > cap });
    }
  return out;
}

/**
 * The enabled extensions' MCP servers as the agent declares its own (stdio, named
 * `<extension>__<server>` so two extensions cannot collide, nor shadow the user's), with the
 * extension's description, started in the extension's folder. The agent runs them as it runs the
 * user's (budget, environment).
 */
export function extensionMcpServers(dataDir: string): McpServerConfig[] {
  return enabledExtensions(dataDir).flatMap((ext) =>
    Object.entries(ext.manifest.mcpServers).map(([name, server]) => ({
      name: `${ext.name}__${name}`,
      transport: "stdio" as const,
      command: server.command,
      args: server.args,
      env: server.env,
      // Started in its own folder, never in the workspace: `python -m x` or a relative require there would load the checkout's code.
      cwd: ext.path,
      description: `from extension ${ext.manifest.displayName ?? ext.name}`,
      extensionName: ext.name,
    })),
  );
}
