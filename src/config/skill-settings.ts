/**
 * The skills switched off (`skills.disabled`, a list of names, case-insensitive): the union of the
 * daemon host's settings and the workspace's `.svc/settings.json`, as the reference merges its
 * scopes. Read again at each use, so a toggle (the daemon writes the workspace file) counts at the
 * next turn. A workspace list is honoured even when the folder is untrusted: it can only hide.
 */
import { join } from "node:path";
import { objectAt, readSettingsDoc } from "./settings-doc.ts";

/** Most names taken from one list; the rest are ignored (the daemon's toggles never write more). */
export const MAX_DISABLED_SKILLS = 1000;

/** How a skill name is compared: trimmed, without case. */
export const skillKey = (name: string) => name.trim().toLowerCase();

function names(doc: Record<string, unknown>): string[] {
  const list = objectAt(doc, "skills").disabled;
  if (!Array.isArray(list)) return [];
  return list.filter((n): n is string => typeof n === "string" && n.trim() !== "").slice(0, MAX_DISABLED_SKILLS).map(skillKey);
}

/** The skill names the daemon host's settings disable, lower-cased: a workspace file cannot enable them. */
export function readHostDisabledSkills(dataDir: string): ReadonlySet<string> {
  return new Set(names(readSettingsDoc(join(dataDir, "settings.json"), [])));
}

/** The disabled skill names, lower-cased. */
export function readDisabledSkills(dataDir: string, workspace: string): ReadonlySet<string> {
  const warnings: string[] = [];
  return new Set([...names(readSettingsDoc(join(dataDir, "settings.json"), warnings)), ...names(readSettingsDoc(join(workspace, ".svc", "settings.json"), warnings))]);
}
