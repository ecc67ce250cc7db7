/**
 * An extension's manifest, `qwen-extension.json` (the reference's name and fields): `name`
 * (required; letters, digits, `_`, `.`, `-`, at most MAX_EXTENSION_NAME), `version`, `displayName`,
 * `description`, `contextFileName` (a file name or a list of them: the extension's instruction
 * files), `mcpServers` (name → a stdio server `{command, args?, env?}`, where
 * `${extensionPath}` and `${/}` are replaced as the reference does). Skills come from its `skills/`
 * folder. Other fields (commands, hooks, settings, channels…) are not used by svc and ignored.
 * Untrusted JSON: bounded (the reader's MAX_MANIFEST_BYTES), every field checked.
 */
import { isAbsolute, sep } from "node:path";

export const MANIFEST_FILE = "qwen-extension.json";
export const MAX_MANIFEST_BYTES = 64 * 1024;
export const MAX_EXTENSION_NAME = 64;
export const EXTENSION_NAME = /^[A-Za-z0-9_.-]+$/;
const MAX_TEXT = 1024;
const MAX_CONTEXT_FILES = 8;
const MAX_SERVERS = 16;
const MAX_ARGS = 64;
const MAX_ARG_CHARS = 4096;

export interface ExtensionMcpServer {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface ExtensionManifest {
  readonly name: string;
  readonly version: string;
  readonly displayName?: string;
  readonly description?: string;
  /** Instruction file names, relative to the extension folder (no `/`, no `..`). */
  readonly contextFiles: readonly string[];
  readonly mcpServers: Readonly<Record<string, ExtensionMcpServer>>;
}

export class ManifestError extends Error {}

/** A folder name the store lists: no leading dot (hidden folders, `.` and `..`, are never extensions). */
export const validExtensionName = (name: string) => name.length > 0 && name.length <= MAX_EXTENSION_NAME && EXTENSION_NAME.test(name) && !name.startsWith(".");

const text = (v: unknown, field: string): string | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw new ManifestError(`"${field}" must be a string`);
  return v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT - 1)}…` : v;
};

const plainFile = (name: string) => name !== "" && name.length <= 255 && !name.includes("/") && !name.includes("\\") && name !== "." && name !== "..";

function hydrate(value: string, extensionPath: string): string {
  return value.replaceAll("${extensionPath}", extensionPath).replaceAll("${CLAUDE_PLUGIN_ROOT}", extensionPath).replaceAll("${/}", sep).replaceAll("${pathSeparator}", sep);
}

function server(name: string, raw: unknown, extensionPath: string): ExtensionMcpServer {
  const where = `mcpServers.${name}`;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new ManifestError(`"${where}" must be an object`);
  const r = raw as Record<string, unknown>;
  if (typeof r.command !== "string" || r.command === "") throw new ManifestError(`"${where}.command" must be a non-empty string (only stdio servers are taken from extensions)`);
  const args = r.args ?? [];
  if (!Array.isArray(args) || args.length > MAX_ARGS || args.some((a) => typeof a !== "string" || a.length > MAX_ARG_CHARS)) throw new ManifestError(`"${where}.args" must be at most ${MAX_ARGS} strings`);
  const env: Record<string, string> = {};
  if (r.env !== undefined) {
    if (r.env === null || typeof r.env !== "object" || Array.isArray(r.env)) throw new ManifestError(`"${where}.env" must be an object of strings`);
    for (const [k, v] of Object.entries(r.env)) {
      if (typeof v !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(k)) throw new ManifestError(`"${where}.env" must map variable names to strings`);
      env[k] = hydrate(v, extensionPath);
    }
  }
  // A path must be absolute once `${extensionPath}` is put in: a relative one would resolve in the
  // workspace the server is started for (a checkout's own script). A bare name is looked up on the
  // agent's PATH, which holds only folders outside the workspace.
  const command = hydrate(r.command, extensionPath);
  if (command.includes("/") && !isAbsolute(command)) throw new ManifestError(`"${where}.command" must be a command name or an absolute path (\${extensionPath}/…), not a relative path`);
  return { command, args: (args as string[]).map((a) => hydrate(a, extensionPath)), env };
}

/** The manifest in `raw` (JSON text) of the extension installed at `extensionPath`. */
export function parseManifest(raw: string, extensionPath: string): ExtensionManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    throw new ManifestError(`${MANIFEST_FILE} is not JSON`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new ManifestError(`${MANIFEST_FILE} is not a JSON object`);
  const d = doc as Record<string, unknown>;
  if (typeof d.name !== "string" || !validExtensionName(d.name)) throw new ManifestError(`"name" must be 1-${MAX_EXTENSION_NAME} letters, digits, _, . or -`);
  const files = d.contextFileName === undefined ? [] : typeof d.contextFileName === "string" ? [d.contextFileName] : d.contextFileName;
  if (!Array.isArray(files) || files.length > MAX_CONTEXT_FILES || files.some((f) => typeof f !== "string" || !plainFile(f))) throw new ManifestError(`"contextFileName" must be a file name in the extension folder or a list of at most ${MAX_CONTEXT_FILES}`);
  const servers: Record<string, ExtensionMcpServer> = {};
  if (d.mcpServers !== undefined) {
    if (d.mcpServers === null || typeof d.mcpServers !== "object" || Array.isArray(d.mcpServers)) throw new ManifestError(`"mcpServers" must be an object`);
    const entries = Object.entries(d.mcpServers);
    if (entries.length > MAX_SERVERS) throw new ManifestError(`at most ${MAX_SERVERS} MCP servers`);
    for (const [name, raw] of entries) {
      if (!validExtensionName(name)) throw new ManifestError(`MCP server name "${name.slice(0, 64)}" must be letters, digits, _, . or -`);
      servers[name] = server(name, raw, extensionPath);
    }
  }
  const version = text(d.version, "version") ?? "1.0.0";
  const displayName = text(d.displayName, "displayName");
  const description = text(d.description, "description");
  return { name: d.name, version, ...(displayName ? { displayName } : {}), ...(description ? { description } : {}), contextFiles: files as string[], mcpServers: servers };
}
