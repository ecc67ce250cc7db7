/**
 * One skill's `SKILL.md`: YAML front matter between `---` lines, then the instructions (the body).
 * The front matter must name the skill (`name`: letters, digits, `_`, `.`, `-`, at most
 * MAX_NAME_CHARS; a `:` is reserved for `<extension>:<name>`) and describe it (`description`, cut at
 * MAX_DESCRIPTION_CHARS); optional: `argument-hint`, `disable-model-invocation` (true: listed, not
 * offered to the model), `user-invocable` (false). Other keys are ignored. The file is untrusted
 * text: its size is bounded by the reader, and nothing in it runs.
 */

export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_HINT_CHARS = 256;
/** Longest front matter parsed (YAML beyond it is not looked at: the file is refused). */
const MAX_FRONT_MATTER_CHARS = 8 * 1024;

export const SKILL_NAME = /^[\p{L}\p{N}_.-]+$/u;

export interface SkillDefinition {
  readonly name: string;
  readonly description: string;
  readonly argumentHint?: string;
  readonly modelInvocable: boolean;
  readonly userInvocable: boolean;
  readonly body: string;
}

export class SkillParseError extends Error {}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function parseSkill(text: string): SkillDefinition {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const match = /^---\n([\s\S]*?)\n---(?:\n|$)([\s\S]*)$/.exec(normalized);
  if (!match) throw new SkillParseError("missing YAML front matter (--- lines)");
  const [, yaml, body] = match as unknown as [string, string, string];
  if (yaml.length > MAX_FRONT_MATTER_CHARS) throw new SkillParseError(`front matter longer than ${MAX_FRONT_MATTER_CHARS} characters`);
  let doc: unknown;
  try {
    doc = Bun.YAML.parse(yaml);
  } catch (err) {
    throw new SkillParseError(`front matter is not YAML: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new SkillParseError("front matter is not a mapping");
  const fm = doc as Record<string, unknown>;
  const name = typeof fm.name === "string" || typeof fm.name === "number" ? String(fm.name).trim() : "";
  if (name === "") throw new SkillParseError('missing "name"');
  if (name.length > MAX_NAME_CHARS || !SKILL_NAME.test(name)) throw new SkillParseError(`"name" must be 1-${MAX_NAME_CHARS} letters, digits, _, . or -`);
  const description = typeof fm.description === "string" ? fm.description.trim() : "";
  if (description === "") throw new SkillParseError('missing "description"');
  const hint = fm["argument-hint"];
  const noModel = fm["disable-model-invocation"];
  return {
    name,
    description: cut(description.replace(/\s+/g, " "), MAX_DESCRIPTION_CHARS),
    ...(typeof hint === "string" && hint.trim() !== "" ? { argumentHint: cut(hint.trim(), MAX_HINT_CHARS) } : {}),
    modelInvocable: !(noModel === true || noModel === "true"),
    userInvocable: fm["user-invocable"] !== false,
    body: body.trim(),
  };
}
