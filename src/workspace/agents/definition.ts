/**
 * One subagent definition: a markdown file whose front matter (between `---` lines) names the agent
 * and says what it is for, and whose body is its system prompt. The front matter is a small YAML
 * subset, read by hand so a hostile file cannot make the reader work hard: `key: value` scalars
 * (plain, single-quoted, or double-quoted with JSON's escapes), block scalars (`|` literal, `>`
 * folded, with `-`/`+` chomping: what Qwen Code writes for a multi-line description), inline lists
 * `[a, b]`, comma lists `a, b`, and `- item` block lists. Keys read: name, description, tools, disallowedTools, model, color, maxTurns (the reference's); the
 * others are not used, and their lines are kept as written when svc rewrites the file. A file that
 * breaks a rule is refused with a message naming what is wrong.
 */

/** Where a definition comes from; `project` ones are read only in trusted workspaces. */
export type AgentLevel = "project" | "user" | "builtin";

export interface AgentDefinition {
  readonly name: string;
  readonly description: string;
  readonly systemPrompt: string;
  readonly level: AgentLevel;
  /** The tools it may use (an allow-list); absent: all of its parent's. */
  readonly tools?: readonly string[];
  readonly disallowedTools?: readonly string[];
  readonly model?: string;
  readonly color?: string;
  /** Model rounds it may take; absent: the default bound. */
  readonly maxTurns?: number;
  /** The file it was read from; `<builtin:NAME>` for a built-in one (the reference's). */
  readonly filePath?: string;
  /** The front matter lines of the keys this reader does not use (Qwen Code's `approvalMode`…), kept as written when svc rewrites the file. */
  readonly otherFrontMatter?: readonly string[];
}

/** The reference's agent-type rule: letters, digits, `_` and `-`, 2 to 64 characters. */
export const AGENT_TYPE_PATTERN = /^[\p{L}\p{N}_-]{2,64}$/u;
export const MAX_DESCRIPTION_CHARS = 4096;
export const MAX_TOOLS_ENTRIES = 64;
export const MAX_TOOL_NAME_CHARS = 128;
/** Highest `maxTurns` a definition may ask for. */
export const MAX_DEFINITION_TURNS = 50;
export const COLORS: ReadonlySet<string> = new Set(["auto", "red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"]);

export class DefinitionError extends Error {}

export const validAgentType = (name: string) => AGENT_TYPE_PATTERN.test(name);

/** A scalar: plain, single-quoted, or double-quoted (with JSON's escapes, as the writer emits it). */
function unquote(raw: string): string {
  const v = raw.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (typeof parsed === "string") return parsed;
    } catch {
      // YAML's own escapes are not JSON's: the text between the quotes, as it is.
    }
    return v.slice(1, -1);
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1);
  return v;
}

/** The keys this reader uses; the lines of a file's other keys are kept (`otherFrontMatter`) for a rewrite. */
const READ_KEYS = new Set(["name", "description", "tools", "disallowedTools", "model", "color", "maxTurns"]);

/** A block scalar's header: `|` or `>`, an optional chomping indicator and indentation digit (either order), an optional comment. */
const BLOCK_HEADER = /^([|>])(?:([+-])([1-9])?|([1-9])([+-])?)?\s*(?:#.*)?$/;

/**
 * The text of a block scalar from its lines (those after the header, up to the next line less
 * indented than its first, with blank lines among them): the common indentation removed, joined by
 * newlines (`|`) or folded into spaces where a line follows a line (`>`), and its final newlines
 * stripped (`-`), kept (`+`) or clipped to one.
 */
function blockScalar(lines: readonly string[], style: string, chomp: string | undefined, indentDigit: string | undefined): string {
  const first = lines.find((l) => l.trim() !== "");
  const indent = indentDigit !== undefined ? Number(indentDigit) : first === undefined ? 0 : first.length - first.trimStart().length;
  const body = lines.map((l) => l.slice(indent));
  let text: string;
  if (style === "|") text = body.join("\n");
  else {
    // Folded: the break between two lines of text is a space; one before blank lines goes, and each
    // blank line is a newline; breaks next to a more indented line stay.
    text = body[0] ?? "";
    for (let i = 1; i < body.length; i++) {
      const prev = body[i - 1]!;
      const line = body[i]!;
      const kept = prev.startsWith(" ") || line.startsWith(" ");
      text += (prev === "" ? "\n" : line === "" ? (prev.startsWith(" ") ? "\n" : "") : kept ? "\n" : " ") + line;
    }
  }
  const content = text.replace(/\n+$/, "");
  if (chomp === "-") return content;
  if (chomp === "+") return text + "\n";
  return content === "" ? "" : `${content}\n`;
}

/** The front matter as keys to a string or a list of strings, and the lines of the keys not read. */
function frontMatter(yaml: string): { fields: Map<string, string | string[]>; other: string[] } {
  const out = new Map<string, string | string[]>();
  const other: string[] = [];
  let listKey: string | null = null;
  let keep = false;
  const lines = yaml.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey !== null) {
      (out.get(listKey) as string[]).push(unquote(item[1]!));
      if (keep) other.push(line);
      continue;
    }
    const pair = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$/.exec(line);
    // The line itself is not echoed: a file that is no definition may hold anything (a key, a token).
    if (!pair) throw new DefinitionError(`front matter line ${index + 1} not understood`);
    const [, key, rest] = pair as unknown as [string, string, string];
    if (out.has(key)) throw new DefinitionError(`front matter key ${key} appears twice`);
    listKey = null;
    keep = !READ_KEYS.has(key);
    if (keep) other.push(line);
    const value = rest.trim();
    const block = BLOCK_HEADER.exec(value);
    if (block) {
      // Its lines: every blank or indented line that follows.
      const start = index + 1;
      while (index + 1 < lines.length && (lines[index + 1]!.trim() === "" || /^\s/.test(lines[index + 1]!))) index++;
      const blockLines = lines.slice(start, index + 1);
      if (keep) other.push(...blockLines);
      out.set(key, blockScalar(blockLines, block[1]!, block[2] ?? block[5], block[3] ?? block[4]));
    } else if (value === "") {
      out.set(key, []);
      listKey = key;
    } else if (value.startsWith("[") && value.endsWith("]")) {
      out.set(key, value.slice(1, -1).split(",").map(unquote).filter((s) => s !== ""));
    } else out.set(key, unquote(value));
  }
  return { fields: out, other };
}

function list(value: string | string[] | undefined, key: string): string[] | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === "string" ? value.split(",").map((s) => s.trim()).filter((s) => s !== "") : value;
  if (items.length > MAX_TOOLS_ENTRIES) throw new DefinitionError(`${key} lists more than ${MAX_TOOLS_ENTRIES} tools`);
  for (const name of items) if (name.length > MAX_TOOL_NAME_CHARS) throw new DefinitionError(`${key} has a tool name longer than ${MAX_TOOL_NAME_CHARS} characters`);
  return items;
}

const scalar = (value: string | string[] | undefined, key: string): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new DefinitionError(`${key} must be a single value`);
  return value;
};

/** Parses a definition file's text (`filePath` is only recorded); throws DefinitionError. */
export function parseDefinition(text: string, level: AgentLevel, filePath?: string): AgentDefinition {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const match = /^---\n([\s\S]*?)\n---(?:\n([\s\S]*))?$/.exec(normalized);
  if (!match) throw new DefinitionError("missing front matter (a --- line, the fields, a --- line)");
  const { fields, other } = frontMatter(match[1]!);
  const name = scalar(fields.get("name"), "name");
  if (!name) throw new DefinitionError('missing "name" in front matter');
  if (!validAgentType(name)) throw new DefinitionError(`name "${name.slice(0, 80)}" must be 2 to 64 letters, digits, _ or -`);
  const description = scalar(fields.get("description"), "description");
  if (!description) throw new DefinitionError('missing "description" in front matter');
  if (description.length > MAX_DESCRIPTION_CHARS) throw new DefinitionError(`description longer than ${MAX_DESCRIPTION_CHARS} characters`);
  const systemPrompt = (match[2] ?? "").trim();
  if (systemPrompt === "") throw new DefinitionError("the system prompt (the text after the front matter) is empty");
  const tools = list(fields.get("tools"), "tools");
  const disallowedTools = list(fields.get("disallowedTools"), "disallowedTools");
  const model = scalar(fields.get("model"), "model");
  const color = scalar(fields.get("color"), "color");
  const turnsRaw = scalar(fields.get("maxTurns"), "maxTurns");
  let maxTurns: number | undefined;
  if (turnsRaw !== undefined) {
    maxTurns = Number(turnsRaw);
    if (!Number.isSafeInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_DEFINITION_TURNS) throw new DefinitionError(`maxTurns must be a whole number from 1 to ${MAX_DEFINITION_TURNS}`);
  }
  return {
    name,
    description,
    systemPrompt,
    level,
    ...(tools ? { tools } : {}),
    ...(disallowedTools ? { disallowedTools } : {}),
    ...(model ? { model } : {}),
    ...(color && COLORS.has(color) ? { color } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(filePath ? { filePath } : {}),
    ...(other.length > 0 ? { otherFrontMatter: other } : {}),
  };
}

/** The built-in definition, always present: the parent's own tools, a short brief. */
export const GENERAL_PURPOSE: AgentDefinition = {
  name: "general-purpose",
  description: "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks.",
  systemPrompt:
    "You are a general-purpose subagent working for a parent agent. Complete only the assigned task, using the available tools as needed. Do not expand the scope. When done, answer with a concise report of what you found or did: the parent reads only your final message.",
  level: "builtin",
  filePath: "<builtin:general-purpose>",
};
