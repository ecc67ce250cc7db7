/**
 * One MCP server's declaration as `PUT /workspace/config/mcp/servers/:name` takes it and as it is
 * stored under `mcpServers.<name>` of a settings file, and its secrets' redaction.
 *
 * A declaration is strict and bounded: a stdio server (`command`, an absolute path; `args`, `env`,
 * `cwd`) or a streamable HTTP one (`url` or `httpUrl`, http(s); `headers`), plus `description`.
 * Any other member, a wrong type or a value past its bound is refused (400
 * `invalid_mcp_server_config`, naming the member), so what is written is always what the built-in
 * agent reads (`config/agent-config.ts`).
 *
 * Secrets: every value of `env` and `headers` is a secret. Answers carry them as REDACTED_SECRET
 * (the reference's marker), keys kept; a declaration sent back with REDACTED_SECRET for a value
 * keeps the stored value (the reference's restore rule), and one naming a key that has no stored
 * value drops it.
 */
import { isAbsolute } from "node:path";
import { DaemonError } from "../errors/daemon-error.ts";

export const REDACTED_SECRET = "__redacted__";
/** Server names the built-in agent reads (`config/agent-config.ts`): 1-32 letters, digits, `_`, `-`; not a name JavaScript objects reserve (the reference refuses them too). */
export const SERVER_NAME_PATTERN = "^(?!(?:__proto__|constructor|prototype)$)[A-Za-z0-9_-]{1,32}$";
/** Most servers one settings file declares (the built-in agent's MAX_MCP_SERVERS). */
export const MAX_DECLARED_SERVERS = 32;
const MAX_PATH_CHARS = 4096;
const MAX_URL_CHARS = 2048;
const MAX_ARGS = 64;
const MAX_ARG_CHARS = 4096;
const MAX_PAIRS = 64;
const MAX_PAIR_VALUE_CHARS = 8192;
const MAX_DESCRIPTION_CHARS = 500;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** An HTTP header name (RFC 9110 token), bounded. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Any control character (a NUL in a path or argument, a CR/LF in a header value). */
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface McpServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  httpUrl?: string;
  headers?: Record<string, string>;
  description?: string;
}

const MEMBERS = new Set(["command", "args", "env", "cwd", "url", "httpUrl", "headers", "description"]);

const invalid = (member: string, why: string) => new DaemonError(400, "invalid_mcp_server_config", `config.${member} ${why}`, { member });

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function text(value: unknown, member: string, max: number): string {
  if (typeof value !== "string" || value.length === 0 || value.length > max) throw invalid(member, `must be a string of 1 to ${max} characters`);
  return value;
}

function absolutePath(value: unknown, member: string): string {
  const path = text(value, member, MAX_PATH_CHARS);
  if (!isAbsolute(path) || CONTROL.test(path)) throw invalid(member, "must be an absolute path without control characters (PATH is never searched)");
  return path;
}

function httpUrl(value: unknown, member: string): string {
  const url = text(value, member, MAX_URL_CHARS);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(member, "must be an http(s) URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid(member, "must be an http(s) URL");
  return url;
}

/** `value` as a map of names (matching `pattern`) to secret strings; REDACTED_SECRET passes (restored later). */
function pairs(value: unknown, member: string, pattern: RegExp): Record<string, string> {
  if (!isRecord(value)) throw invalid(member, "must be an object of strings");
  const entries = Object.entries(value);
  if (entries.length > MAX_PAIRS) throw invalid(member, `has more than ${MAX_PAIRS} entries`);
  const out: Record<string, string> = {};
  for (const [key, v] of entries) {
    // The key, not its value, may appear in an error: values are secrets.
    if (!pattern.test(key)) throw invalid(member, `has a name that is not allowed: ${JSON.stringify(key.slice(0, 128))}`);
    if (typeof v !== "string" || v.length > MAX_PAIR_VALUE_CHARS || (member === "headers" && CONTROL.test(v)) || v.includes("\u0000")) {
      throw invalid(`${member}.${key}`, `must be a string of at most ${MAX_PAIR_VALUE_CHARS} characters${member === "headers" ? " without control characters" : ""}`);
    }
    out[key] = v;
  }
  return out;
}

/** The declaration `raw` checked and copied (members in a fixed order), or a 400. */
export function parseServerEntry(raw: unknown): McpServerEntry {
  if (!isRecord(raw)) throw new DaemonError(400, "invalid_mcp_server_config", "config is required and must be an object");
  for (const key of Object.keys(raw)) if (!MEMBERS.has(key)) throw invalid(key.slice(0, 64), "is not a member this daemon knows (command, args, env, cwd, url, httpUrl, headers, description)");
  const remotes = ["url", "httpUrl"].filter((k) => raw[k] !== undefined);
  const stdio = raw.command !== undefined;
  if (Number(stdio) + remotes.length !== 1) throw new DaemonError(400, "invalid_mcp_server_config", "config needs exactly one of command, url or httpUrl");
  const entry: McpServerEntry = {};
  if (stdio) {
    entry.command = absolutePath(raw.command, "command");
    if (raw.args !== undefined) {
      if (!Array.isArray(raw.args) || raw.args.length > MAX_ARGS) throw invalid("args", `must be an array of at most ${MAX_ARGS} strings`);
      entry.args = raw.args.map((a, i) => {
        if (typeof a !== "string" || a.length > MAX_ARG_CHARS || a.includes("\u0000")) throw invalid(`args[${i}]`, `must be a string of at most ${MAX_ARG_CHARS} characters`);
        return a;
      });
    }
    if (raw.env !== undefined) entry.env = pairs(raw.env, "env", ENV_NAME);
    if (raw.cwd !== undefined) entry.cwd = absolutePath(raw.cwd, "cwd");
    for (const k of ["headers"]) if (raw[k] !== undefined) throw invalid(k, "applies to a url or httpUrl server only");
  } else {
    const key = remotes[0] as "url" | "httpUrl";
    entry[key] = httpUrl(raw[key], key);
    if (raw.headers !== undefined) entry.headers = pairs(raw.headers, "headers", HEADER_NAME);
    for (const k of ["args", "env", "cwd"]) if (raw[k] !== undefined) throw invalid(k, "applies to a command server only");
  }
  if (raw.description !== undefined) entry.description = text(raw.description, "description", MAX_DESCRIPTION_CHARS);
  return entry;
}

/** Members a runtime server (`POST /workspace/mcp/servers`) cannot take: the reference agent drops them, svc refuses them. */
const NOT_AT_RUNTIME = ["env", "cwd", "headers"] as const;

/**
 * A runtime server's declaration: `parseServerEntry`'s rules, without `env`, `cwd` or `headers`;
 * a refusal is the reference's 400 `invalid_config` naming the server and the reason.
 */
export function parseRuntimeEntry(name: string, raw: unknown): McpServerEntry {
  let entry: McpServerEntry;
  try {
    entry = parseServerEntry(raw);
  } catch (err) {
    if (!(err instanceof DaemonError)) throw err;
    throw new DaemonError(400, "invalid_config", `Invalid MCP server config for '${name}': ${err.message}`, { serverName: name, reason: err.message });
  }
  const member = NOT_AT_RUNTIME.find((k) => entry[k] !== undefined);
  if (member !== undefined) {
    const reason = `a runtime server takes no ${member}; declare it with PUT /workspace/config/mcp/servers/:name instead`;
    throw new DaemonError(400, "invalid_config", `Invalid MCP server config for '${name}': ${reason}`, { serverName: name, reason });
  }
  return entry;
}

const redactRecord = (record: unknown) => (isRecord(record) ? Object.fromEntries(Object.keys(record).map((k) => [k, REDACTED_SECRET])) : undefined);

/**
 * A stored declaration as answers show it: the known members only (a hand-edited file may hold
 * others, an OAuth secret among them), `env` and `headers` with their values replaced by
 * REDACTED_SECRET; an unreadable one as `{}`.
 */
export function redactServer(stored: unknown): Record<string, unknown> {
  if (!isRecord(stored)) return {};
  const out: Record<string, unknown> = {};
  for (const key of ["command", "cwd", "description"]) if (typeof stored[key] === "string") out[key] = stored[key];
  for (const key of ["url", "httpUrl"]) if (typeof stored[key] === "string") out[key] = redactUrl(stored[key] as string);
  if (Array.isArray(stored.args) && stored.args.every((a) => typeof a === "string")) out.args = stored.args;
  for (const key of ["env", "headers"]) {
    const redacted = redactRecord(stored[key]);
    if (redacted !== undefined) out[key] = redacted;
  }
  return out;
}

/** Every declaration of an `mcpServers` member, redacted; anything not an object is `{}`. */
export function redactServers(declared: unknown): Record<string, Record<string, unknown>> {
  if (!isRecord(declared)) return {};
  return Object.fromEntries(Object.entries(declared).map(([name, s]) => [name, redactServer(s)]));
}

/**
 * `url` with its credentials and query values replaced by REDACTED_SECRET (a URL may carry a
 * password or an API key: `https://user:pw@host/mcp?api_key=…`); one that does not parse as it is.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username === "" && parsed.password === "" && parsed.search === "") return url;
  if (parsed.username !== "") parsed.username = REDACTED_SECRET;
  if (parsed.password !== "") parsed.password = REDACTED_SECRET;
  for (const key of [...new Set(parsed.searchParams.keys())]) parsed.searchParams.set(key, REDACTED_SECRET);
  return parsed.href;
}

/** Where a declaration sends what it is given: its command line or its address. */
const destination = (entry: Record<string, unknown>) => JSON.stringify([entry.command, entry.args ?? [], entry.cwd, entry.url, entry.httpUrl]);

/**
 * `entry` with each REDACTED_SECRET value replaced by the stored one of `existing` (dropped when
 * there is none), and a URL sent back redacted (`redactUrl`) replaced by the stored one. A stored
 * secret goes back only to the same destination: a declaration whose command, arguments, folder or
 * URL changed and that still names a redacted value is refused (400), as it would hand the secret
 * to another program or host.
 */
export function restoreSecrets(entry: McpServerEntry, existing: unknown): McpServerEntry {
  const prior = isRecord(existing) ? existing : {};
  const out: McpServerEntry = { ...entry };
  for (const key of ["url", "httpUrl"] as const) {
    const stored = prior[key];
    if (typeof stored === "string" && entry[key] !== undefined && entry[key] !== stored && entry[key] === redactUrl(stored)) out[key] = stored;
  }
  const usesRedacted = [out.env, out.headers].some((pairs) => pairs !== undefined && Object.values(pairs).includes(REDACTED_SECRET)) || [out.url, out.httpUrl].some((u) => u?.includes(REDACTED_SECRET));
  if (usesRedacted && destination(out as Record<string, unknown>) !== destination(prior)) {
    throw new DaemonError(400, "invalid_mcp_server_config", `config names a redacted secret (${REDACTED_SECRET}) but its command, arguments, folder or URL changed: send the secret itself`, { member: "env" });
  }
  for (const key of ["env", "headers"] as const) {
    const incoming = entry[key];
    if (incoming === undefined) continue;
    const stored = isRecord(prior[key]) ? (prior[key] as Record<string, unknown>) : {};
    const restored: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming)) {
      if (value !== REDACTED_SECRET) restored[name] = value;
      else if (typeof stored[name] === "string") restored[name] = stored[name] as string;
    }
    out[key] = restored;
  }
  return out;
}
