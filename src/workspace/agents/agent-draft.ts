/**
 * A subagent definition as `POST /workspace/agents` (create) and `POST /workspace/agents/:agentType`
 * (update) take it, checked with the reference daemon's rules and codes (422 `invalid_config`), and
 * the file written for it. The file is what the reader (`definition.ts`) reads back: every scalar
 * is double-quoted with JSON's escapes (so a description holding quotes, `---`, `#` or line breaks
 * stays one value and cannot add a key), lists are block lists, and the body is the system prompt.
 * What is written is parsed again before it is kept, so the answer is what a later read gives.
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import { MAX_AGENT_FILE_BYTES } from "./agent-files.ts";
import { COLORS, DefinitionError, GENERAL_PURPOSE, MAX_DEFINITION_TURNS, MAX_DESCRIPTION_CHARS, MAX_TOOL_NAME_CHARS, MAX_TOOLS_ENTRIES, parseDefinition, validAgentType, type AgentDefinition, type AgentLevel } from "./definition.ts";

/** The reference's bound of a system prompt. */
export const MAX_SYSTEM_PROMPT_BYTES = 32 * 1024;
const MAX_MODEL_CHARS = 256;
/** Members of the reference's agents this daemon's subagents do not have: refused, not dropped. */
const UNSUPPORTED = ["executionBackend", "mcpServers", "runConfig", "hooks", "skills", "approvalMode", "permissionMode", "background"] as const;
/** Longest file name a definition may get (`<name>.md`), in bytes: the common file system limit. */
const MAX_FILE_NAME_BYTES = 255;

export interface AgentFields {
  description: string;
  systemPrompt: string;
  tools?: string[];
  disallowedTools?: string[];
  model?: string;
  color?: string;
  maxTurns?: number;
}

/** The members to change; `model`, `color` or `maxTurns` present as undefined (sent as null) is removed. */
export type AgentUpdates = { [K in keyof AgentFields]?: AgentFields[K] | undefined };

export const invalidConfig = (message: string, name?: string) => new DaemonError(422, "invalid_config", message, name === undefined ? {} : { name });

/** `value`, refused when it holds a lone surrogate (UTF-8 and YAML have no way to write one). */
function wellFormed(value: string, key: string): string {
  if (!value.isWellFormed()) throw invalidConfig(`\`${key}\` is not well-formed Unicode (a lone surrogate)`);
  return value;
}

function text(body: Record<string, unknown>, key: "description" | "systemPrompt", maxBytes: number): string {
  const value = body[key];
  if (typeof value !== "string" || value.trim() === "") throw invalidConfig(`\`${key}\` is required and must be a non-empty string (whitespace only is rejected)`);
  wellFormed(value, key);
  if (Buffer.byteLength(value, "utf8") > maxBytes) throw invalidConfig(`\`${key}\` exceeds the ${maxBytes}-byte limit`);
  return value.trim();
}

function toolList(value: unknown, key: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_TOOLS_ENTRIES) throw invalidConfig(`\`${key}\` must be an array of at most ${MAX_TOOLS_ENTRIES} tool names`);
  return value.map((name) => {
    if (typeof name !== "string" || name.trim() === "" || name.length > MAX_TOOL_NAME_CHARS || /[\u0000-\u001f\u007f]/.test(name)) throw invalidConfig(`\`${key}\` holds a name that is not 1 to ${MAX_TOOL_NAME_CHARS} characters`);
    return wellFormed(name.trim(), key);
  });
}

/** The members of `body` that are present, checked (an update takes any of them; a create needs description and systemPrompt). */
export function readFields(body: Record<string, unknown>): AgentUpdates {
  for (const key of UNSUPPORTED) if (key in body) throw invalidConfig(`\`${key}\` is not supported by this daemon's subagents`);
  const out: AgentUpdates = {};
  if ("description" in body) {
    out.description = text(body, "description", MAX_DESCRIPTION_CHARS);
    if (out.description.length > MAX_DESCRIPTION_CHARS) throw invalidConfig(`\`description\` exceeds ${MAX_DESCRIPTION_CHARS} characters`);
  }
  if ("systemPrompt" in body) out.systemPrompt = text(body, "systemPrompt", MAX_SYSTEM_PROMPT_BYTES);
  if ("tools" in body && body.tools !== null) out.tools = toolList(body.tools, "tools");
  if ("disallowedTools" in body && body.disallowedTools !== null) out.disallowedTools = toolList(body.disallowedTools, "disallowedTools");
  // null removes a member (the reference's): present in the updates, undefined.
  for (const key of ["model", "color", "maxTurns"] as const) if (body[key] === null) out[key] = undefined;
  if ("model" in body && body.model !== null) {
    if (typeof body.model !== "string" || body.model.trim() === "" || body.model.length > MAX_MODEL_CHARS) throw invalidConfig(`\`model\` must be a model id of 1 to ${MAX_MODEL_CHARS} characters`);
    out.model = wellFormed(body.model.trim(), "model");
  }
  if ("color" in body && body.color !== null) {
    if (typeof body.color !== "string" || !COLORS.has(body.color)) throw invalidConfig(`\`color\` must be one of ${[...COLORS].join(", ")}`);
    out.color = body.color;
  }
  if ("maxTurns" in body && body.maxTurns !== null) {
    if (!Number.isSafeInteger(body.maxTurns) || (body.maxTurns as number) < 1 || (body.maxTurns as number) > MAX_DEFINITION_TURNS) throw invalidConfig(`\`maxTurns\` must be a whole number from 1 to ${MAX_DEFINITION_TURNS}`);
    out.maxTurns = body.maxTurns as number;
  }
  return out;
}

/** A create's name: the reference's agent-type rule, and not the built-in's. */
export function readName(body: Record<string, unknown>): string {
  const raw = body.name;
  if (typeof raw !== "string" || raw.trim() === "") throw invalidConfig("`name` is required and must be a non-empty string");
  const name = raw.trim();
  if (!validAgentType(name) || Buffer.byteLength(`${name}.md`) > MAX_FILE_NAME_BYTES) throw invalidConfig("`name` must be 2-64 characters of letters, numbers, hyphens, or underscores", name);
  if (name === GENERAL_PURPOSE.name) throw invalidConfig(`"${name}" shadows a built-in subagent and cannot be used as a project- or user-level agent name. Choose a different name.`, name);
  // `POST /workspace/agents/generate` is a route of its own: a definition of that name could never be updated.
  if (name === "generate") throw invalidConfig(`"generate" is reserved (POST /workspace/agents/generate drafts a definition); choose another name`, name);
  return name;
}

/** A double-quoted scalar: JSON's escapes, and U+2028 and U+2029 escaped too (JSON leaves them raw; they end a line here and fold in YAML). */
export const quoted = (value: string) => JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/**
 * The file for definition `name` with `fields` (and `other` front matter lines, kept as read), and
 * the definition a read of it gives (422 when it would not read back).
 */
export function renderDefinition(name: string, fields: AgentFields, level: Exclude<AgentLevel, "builtin">, filePath: string, other: readonly string[] = []): { text: string; definition: AgentDefinition } {
  const lines = ["---", `name: ${name}`, `description: ${quoted(fields.description)}`];
  for (const key of ["tools", "disallowedTools"] as const) {
    const list = fields[key];
    if (list === undefined) continue;
    lines.push(list.length === 0 ? `${key}: []` : `${key}:`, ...list.map((item) => `  - ${quoted(item)}`));
  }
  if (fields.model !== undefined) lines.push(`model: ${quoted(fields.model)}`);
  if (fields.color !== undefined) lines.push(`color: ${fields.color}`);
  if (fields.maxTurns !== undefined) lines.push(`maxTurns: ${fields.maxTurns}`);
  lines.push(...other, "---", "", fields.systemPrompt, "");
  const text = lines.join("\n");
  if (Buffer.byteLength(text, "utf8") > MAX_AGENT_FILE_BYTES) throw invalidConfig(`the definition would be larger than ${MAX_AGENT_FILE_BYTES} bytes`, name);
  try {
    return { text, definition: parseDefinition(text, level, filePath) };
  } catch (err) {
    if (err instanceof DefinitionError) throw invalidConfig(`the definition would not read back: ${err.message}`, name);
    throw err;
  }
}

/** A definition's own fields (what an update starts from). */
export const fieldsOf = (d: AgentDefinition): AgentFields => ({
  description: d.description,
  systemPrompt: d.systemPrompt,
  ...(d.tools ? { tools: [...d.tools] } : {}),
  ...(d.disallowedTools ? { disallowedTools: [...d.disallowedTools] } : {}),
  ...(d.model ? { model: d.model } : {}),
  ...(d.color ? { color: d.color } : {}),
  ...(d.maxTurns !== undefined ? { maxTurns: d.maxTurns } : {}),
});
