/**
 * The built-in agent's MCP server declarations, from the settings files:
 *
 * - `mcpServers` of the host settings, and of the workspace's `.svc/settings.json` while the
 *   workspace is trusted (a workspace's server of the same name wins, as in the reference's merged
 *   settings). An untrusted workspace's declarations never start: a cloned repository could
 *   otherwise make the agent run a command of its choosing.
 * - `{<name>: {command: <absolute path>, args?, env?, cwd?, description?} | {url|httpUrl: <http(s) URL>, headers?, description?}}`:
 *   stdio servers by absolute command path (PATH is never searched), streamable HTTP servers by URL.
 * - `mcp.excluded` (of the host, and of a trusted workspace) names servers that are declared but
 *   disabled: they are listed (`disabled`), never connected.
 *
 * A declaration that cannot be used is a warning and left out; at most MAX_MCP_SERVERS are kept.
 */
import { isAbsolute } from "node:path";
import { objectAt, type SettingsDoc } from "./settings-doc.ts";

export type McpServerConfig = (
  | { readonly name: string; readonly transport: "stdio"; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly cwd?: string }
  | { readonly name: string; readonly transport: "http"; readonly url: string; readonly headers?: Readonly<Record<string, string>> }
) & {
  readonly description?: string;
  /** Listed but never connected (`mcp.excluded`). */
  readonly disabled?: boolean;
  /** The extension that brought it (none for a settings file's). */
  readonly extensionName?: string;
};

/** Most MCP servers declared; the rest are ignored with a warning. */
export const MAX_MCP_SERVERS = 32;

/** Longest MCP server `description` kept (a longer one is cut). */
const MAX_DESCRIPTION_CHARS = 500;

const isStringMap = (value: unknown): value is Record<string, string> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");

/** One file's `mcpServers`, in declaration order (at most MAX_MCP_SERVERS). */
export function mcpServersOf(file: string, doc: SettingsDoc, warnings: string[]): McpServerConfig[] {
  const declared = doc.mcpServers;
  if (declared === undefined) return [];
  if (declared === null || typeof declared !== "object" || Array.isArray(declared)) {
    warnings.push(`${file}: mcpServers must be an object; ignored`);
    return [];
  }
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(declared)) {
    const where = `${file}: mcpServers.${name}`;
    const s = (raw ?? {}) as Record<string, unknown>;
    const description = typeof s.description === "string" ? { description: s.description.slice(0, MAX_DESCRIPTION_CHARS) } : {};
    const url = s.url ?? s.httpUrl;
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) warnings.push(`${file}: MCP server names are 1-32 letters, digits, '_' or '-'; ${JSON.stringify(name)} ignored`);
    else if (servers.length >= MAX_MCP_SERVERS) warnings.push(`${where}: more than ${MAX_MCP_SERVERS} MCP servers; ignored`);
    else if (typeof url === "string") {
      if (!/^https?:\/\//.test(url)) warnings.push(`${where}.url must be an http(s) URL; ignored`);
      else if (s.headers !== undefined && !isStringMap(s.headers)) warnings.push(`${where}.headers must map names to strings; ignored`);
      else servers.push({ name, transport: "http", url, ...(s.headers === undefined ? {} : { headers: s.headers as Record<string, string> }), ...description });
    } else if (typeof s.command === "string" && isAbsolute(s.command)) {
      const args = s.args ?? [];
      const env = s.env ?? {};
      if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) warnings.push(`${where}.args must be an array of strings; ignored`);
      else if (!isStringMap(env)) warnings.push(`${where}.env must map names to strings; ignored`);
      else if (s.cwd !== undefined && (typeof s.cwd !== "string" || !isAbsolute(s.cwd))) warnings.push(`${where}.cwd must be an absolute path; ignored`);
      else servers.push({ name, transport: "stdio", command: s.command, args: args as string[], env, ...(typeof s.cwd === "string" ? { cwd: s.cwd } : {}), ...description });
    } else warnings.push(`${where} needs an absolute "command" or an http(s) "url"; ignored`);
  }
  return servers;
}

/** The names of `mcp.excluded` (none when absent or not a list of strings, with a warning then). */
function excludedOf(file: string, doc: SettingsDoc, warnings: string[]): string[] {
  const value = objectAt(doc, "mcp").excluded;
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  warnings.push(`${file}: mcp.excluded must be a list of server names; ignored`);
  return [];
}

export interface McpSettingsInputs {
  readonly host: SettingsDoc;
  readonly hostFile: string;
  readonly local: SettingsDoc;
  readonly workspaceFile: string;
  readonly trusted: boolean;
  /** Servers brought by extensions (`extensions/extension-contributions.ts`): after the files' own, which win a name. */
  readonly extra?: readonly McpServerConfig[];
}

/**
 * The servers in force: the host's, with a trusted workspace's over them, then the extensions' of
 * other names; those `mcp.excluded` names (an extension's too) marked disabled.
 */
export function mcpServersFor(inputs: McpSettingsInputs, warnings: string[]): McpServerConfig[] {
  const merged = new Map<string, McpServerConfig>();
  for (const s of mcpServersOf(inputs.hostFile, inputs.host, warnings)) merged.set(s.name, s);
  const excluded = new Set(excludedOf(inputs.hostFile, inputs.host, warnings));
  if (inputs.trusted) {
    for (const s of mcpServersOf(inputs.workspaceFile, inputs.local, warnings)) merged.set(s.name, s);
    for (const name of excludedOf(inputs.workspaceFile, inputs.local, warnings)) excluded.add(name);
  }
  for (const s of inputs.extra ?? []) if (!merged.has(s.name)) merged.set(s.name, s);
  const servers = [...merged.values()].map((s) => (excluded.has(s.name) ? { ...s, disabled: true } : s));
  if (servers.length > MAX_MCP_SERVERS) warnings.push(`more than ${MAX_MCP_SERVERS} MCP servers between the host and workspace settings and the extensions; the last ones are ignored`);
  return servers.slice(0, MAX_MCP_SERVERS);
}
