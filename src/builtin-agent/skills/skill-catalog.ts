/**
 * The skills the built-in agent knows, read from their folders at each use (a turn's start, a
 * `skill` call, a status query), so a new, edited, toggled or removed skill counts at once:
 *
 *   project    `<workspace>/.svc/skills/`, `.agents/skills/`, `.qwen/skills/` (the reference's two
 *              folders too), only while the workspace is trusted
 *   user       `<data dir>/skills/`
 *   extension  `<extension>/skills/` of each enabled extension, named `<extension>:<name>`
 *
 * Each folder holds one sub-folder per skill with a `SKILL.md` (`skill-file.ts`). A name seen
 * twice keeps its first definition, in the order above (compared case-insensitively). Bounds: at
 * most MAX_ENTRIES_PER_DIR entries looked at per folder, MAX_SKILLS skills in all, a SKILL.md of
 * at most MAX_SKILL_FILE_BYTES (a larger one is refused, not cut). A skill folder that is a
 * symlink is not followed, and a SKILL.md is read only when it really lies inside its source's
 * root (`readSmallFileSync`), so a checkout cannot make the agent read a file elsewhere.
 * A skill named in `skills.disabled` (`config/skill-settings.ts`) stays listed with status
 * `disabled` but is neither offered to the model nor invocable.
 */
import { opendirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { readSmallFileSync } from "../../workspace/contained-fs.ts";
import { parseSkill, type SkillDefinition } from "./skill-file.ts";

export const MAX_ENTRIES_PER_DIR = 256;
export const MAX_SKILLS = 200;
export const MAX_SKILL_FILE_BYTES = 64 * 1024;
const SKILL_FILE = "SKILL.md";
/** The project folders searched, in order (svc's own first). */
export const PROJECT_SKILL_DIRS = [".svc/skills", ".agents/skills", ".qwen/skills"] as const;

export type SkillLevel = "project" | "user" | "extension";

export interface SkillSource {
  readonly level: SkillLevel;
  /** The folder of skill folders (absolute). */
  readonly dir: string;
  /** What a SKILL.md's real location must lie inside (absolute, resolved). */
  readonly root: string;
  /** For an extension's skills: its name (the skills' prefix). */
  readonly extensionName?: string;
}

export interface Skill extends SkillDefinition {
  readonly level: SkillLevel;
  /** Its folder (absolute): never in a status answer, told to the model with the body. */
  readonly baseDir: string;
  readonly extensionName?: string;
  /** As written in its SKILL.md (an extension's skill is listed as `<extension>:<authoredName>`). */
  readonly authoredName: string;
  readonly disabled: boolean;
}

/** A skill folder that was not taken, for the agent's log and the preflight cell (no paths). */
export interface SkillProblem {
  readonly level: SkillLevel;
  readonly folder: string;
  readonly error: string;
}

export interface SkillCatalog {
  readonly skills: readonly Skill[];
  readonly problems: readonly SkillProblem[];
}

export interface SkillWhere {
  readonly workspace: string;
  readonly dataDir: string;
  readonly trusted: boolean;
  /** Enabled extensions' skill folders. */
  readonly extensions: readonly SkillSource[];
  /** Lower-cased names switched off. */
  readonly disabled: ReadonlySet<string>;
}

export function skillSources(where: Pick<SkillWhere, "workspace" | "dataDir" | "trusted" | "extensions">): SkillSource[] {
  const project: SkillSource[] = where.trusted ? PROJECT_SKILL_DIRS.map((rel) => ({ level: "project", dir: join(where.workspace, rel), root: where.workspace })) : [];
  return [...project, { level: "user", dir: join(where.dataDir, "skills"), root: where.dataDir }, ...where.extensions];
}

/** The names of the sub-folders of `dir` (not links), at most MAX_ENTRIES_PER_DIR looked at, sorted. */
function folders(dir: string): string[] {
  let handle;
  try {
    handle = opendirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  try {
    for (let i = 0; i < MAX_ENTRIES_PER_DIR; i++) {
      const entry = handle.readSync();
      if (entry === null) break;
      if (entry.isDirectory() && !entry.name.startsWith(".")) out.push(entry.name);
    }
  } finally {
    handle.closeSync();
  }
  return out.sort();
}

/** `path` with its links resolved (as the kernel reports an opened file's place), or as given when it does not exist. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function loadSkills(where: SkillWhere): SkillCatalog {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const seen = new Set<string>();
  for (const source of skillSources(where)) {
    for (const folder of folders(source.dir)) {
      if (skills.length >= MAX_SKILLS) {
        problems.push({ level: source.level, folder, error: `more than ${MAX_SKILLS} skills; the rest are not read` });
        return { skills, problems };
      }
      const baseDir = join(source.dir, folder);
      const bytes = readSmallFileSync(real(source.root), baseDir, SKILL_FILE, MAX_SKILL_FILE_BYTES + 1);
      if (bytes === null) continue;
      if (bytes.length > MAX_SKILL_FILE_BYTES) {
        problems.push({ level: source.level, folder, error: `${SKILL_FILE} is larger than ${MAX_SKILL_FILE_BYTES} bytes` });
        continue;
      }
      let definition: SkillDefinition;
      try {
        definition = parseSkill(bytes.toString("utf8"));
      } catch (err) {
        problems.push({ level: source.level, folder, error: (err as Error).message });
        continue;
      }
      const name = source.extensionName ? `${source.extensionName}:${definition.name}` : definition.name;
      if (seen.has(name.toLowerCase())) continue;
      seen.add(name.toLowerCase());
      const disabled = where.disabled.has(name.toLowerCase()) || (source.extensionName !== undefined && where.disabled.has(definition.name.toLowerCase()));
      skills.push({ ...definition, name, authoredName: definition.name, level: source.level, baseDir, disabled, ...(source.extensionName ? { extensionName: source.extensionName } : {}) });
    }
  }
  return { skills, problems };
}

/** The skills the model may be offered and may invoke: enabled and model-invocable. */
export const invocable = (catalog: SkillCatalog): Skill[] => catalog.skills.filter((s) => !s.disabled && s.modelInvocable);

/** A skill's status cell (spec "Skills"): no path, no body. */
export function skillCell(skill: Skill) {
  return {
    kind: "skill",
    status: skill.disabled ? "disabled" : "ok",
    name: skill.name,
    description: skill.description,
    level: skill.level,
    modelInvocable: skill.modelInvocable,
    ...(skill.disabled ? { disabledReason: "hard" } : {}),
    ...(skill.userInvocable ? {} : { userInvocable: false }),
    ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}),
    ...(skill.extensionName ? { extensionName: skill.extensionName } : {}),
  };
}
