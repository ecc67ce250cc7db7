/**
 * The built-in agent's skills (`skill-catalog.ts`: where they come from and their bounds;
 * `skill-file.ts`: the SKILL.md format; `skill-tool.ts`: how the model loads one). One `Skills`
 * per agent; everything is read at each use, nothing cached.
 */
import { readDisabledSkills } from "../../config/skill-settings.ts";
import { loadSkills, type SkillCatalog, type SkillSource } from "./skill-catalog.ts";

export { invocable, skillCell, type Skill, type SkillCatalog, type SkillSource } from "./skill-catalog.ts";
export { SKILL_TOOL_NAME, skillTool } from "./skill-tool.ts";

export interface SkillsDeps {
  readonly workspace: string;
  readonly dataDir: string;
  readonly trusted: () => boolean;
  /** The skill folders of the enabled extensions, asked at each use. */
  readonly extensions: () => readonly SkillSource[];
}

export class Skills {
  constructor(private readonly deps: SkillsDeps) {}

  catalog(): SkillCatalog {
    const { workspace, dataDir } = this.deps;
    return loadSkills({ workspace, dataDir, trusted: this.deps.trusted(), extensions: this.deps.extensions(), disabled: readDisabledSkills(dataDir, workspace) });
  }
}
