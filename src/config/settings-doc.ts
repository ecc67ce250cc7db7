/**
 * Settings documents read leniently, for the built-in agent and the reports about it: a file that
 * cannot be used is a warning and counts as empty (the daemon's own settings, `settings.ts`, fail
 * boot instead).
 */
import { BootError } from "./boot-error.ts";
import { readSettingsText } from "./settings-file.ts";

export type SettingsDoc = Record<string, unknown>;

/** `file`'s JSON object; `{}` when there is none, or (with a warning) when it cannot be read or is not an object. */
export function readSettingsDoc(file: string, warnings: string[]): SettingsDoc {
  let text: string | null;
  try {
    text = readSettingsText(file);
  } catch (err) {
    warnings.push(err instanceof BootError ? err.message : `cannot read ${file}`);
    return {};
  }
  if (text === null) return {};
  try {
    const doc: unknown = JSON.parse(text);
    if (doc !== null && typeof doc === "object" && !Array.isArray(doc)) return doc as SettingsDoc;
  } catch {
    // reported below
  }
  warnings.push(`${file} is not a JSON object; ignored`);
  return {};
}

/** The object member `key` of `doc`, or `{}` when it is absent or not an object. */
export const objectAt = (doc: SettingsDoc, key: string): SettingsDoc => {
  const value = doc[key];
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as SettingsDoc) : {};
};
