/**
 * The `skill` tool: the model names a skill from the "Skills" list of its system prompt and gets
 * its instructions (the SKILL.md body, after its base folder), bounded like every tool result
 * (`capForModel`). The catalogue is read again at the call, so a skill disabled since the list was
 * made is refused. A read: it runs in every approval mode.
 */
import { capForModel, stringArg, textContent, ToolInputError, type AgentTool } from "../tools/tool.ts";
import { invocable, type SkillCatalog } from "./skill-catalog.ts";

export const SKILL_TOOL_NAME = "skill";

/** Longest `args` passed along with a skill (appended to its instructions). */
const MAX_ARGS_CHARS = 4096;

export function skillTool(catalog: () => SkillCatalog): AgentTool {
  return {
    name: SKILL_TOOL_NAME,
    description:
      "Load a skill: specialised instructions for a kind of task. Name a skill exactly as the Skills list of the system prompt spells it; the result is the skill's instructions, which you then follow. When a listed skill fits the task, load it before doing the task.",
    parameters: {
      type: "object",
      properties: { skill: { type: "string", description: "The skill's name, as listed" }, args: { type: "string", description: "Optional arguments for the skill" } },
      required: ["skill"],
      additionalProperties: false,
    },
    kind: "read",
    toolClass: "read",
    async prepare(args) {
      const name = stringArg(args, "skill").trim();
      const extra = stringArg(args, "args", true);
      if (name === "") throw new ToolInputError("argument skill must name a skill");
      if (extra !== undefined && extra.length > MAX_ARGS_CHARS) throw new ToolInputError(`argument args must be at most ${MAX_ARGS_CHARS} characters`);
      const current = catalog();
      const skill = invocable(current).find((s) => s.name === name);
      if (!skill) {
        const known = current.skills.find((s) => s.name.toLowerCase() === name.toLowerCase());
        if (known?.disabled) throw new ToolInputError(`skill "${name}" is disabled`);
        const names = invocable(current).map((s) => s.name);
        throw new ToolInputError(`skill "${name}" not found. ${names.length ? `Available skills: ${names.join(", ")}` : "No skills are available."}`);
      }
      return {
        title: `Skill ${skill.name}`,
        async run() {
          const text = [
            `Base directory for this skill: ${skill.baseDir}`,
            "Resolve the relative paths the skill mentions against this directory.",
            "",
            skill.body,
            ...(extra ? ["", `Arguments: ${extra}`] : []),
          ].join("\n");
          const capped = capForModel(text);
          return { text: capped, content: [textContent(`Loaded skill ${skill.name}`)], rawOutput: { skill: skill.name, level: skill.level } };
        },
      };
    },
  };
}
