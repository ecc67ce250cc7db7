/**
 * The user's language setting, `<data dir>/language.json` `{language, outputLanguage}`: written by
 * `POST /language` (atomically, owner-only), read by the built-in agent at each turn. A missing,
 * unreadable, oversized (MAX_FILE_BYTES) or malformed file is "no setting".
 */
import { randomBytes } from "node:crypto";
import { lstatSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LANGUAGE_CODES, LANGUAGES, AUTO_LANGUAGE } from "./languages.ts";

const FILE = "language.json";
const MAX_FILE_BYTES = 4096;

export interface UserLanguage {
  readonly language: string;
  /** The language the agent answers in (a full name or `auto`); null: not synced, the model picks. */
  readonly outputLanguage: string | null;
}

const validOutput = (v: unknown): v is string | null => v === null || v === AUTO_LANGUAGE || LANGUAGES.some((l) => l.fullName === v);

export function readUserLanguage(dataDir: string): UserLanguage | null {
  try {
    const path = join(dataDir, FILE);
    const st = lstatSync(path);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return null;
    const doc = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    if (typeof doc.language !== "string" || !LANGUAGE_CODES.includes(doc.language) || !validOutput(doc.outputLanguage ?? null)) return null;
    return { language: doc.language, outputLanguage: (doc.outputLanguage ?? null) as string | null };
  } catch {
    return null;
  }
}

/** Saves the setting; `outputLanguage` null keeps the one saved before. */
export function writeUserLanguage(dataDir: string, setting: UserLanguage): UserLanguage {
  const kept = setting.outputLanguage ?? readUserLanguage(dataDir)?.outputLanguage ?? null;
  const next = { language: setting.language, outputLanguage: kept };
  const path = join(dataDir, FILE);
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, JSON.stringify(next) + "\n", { mode: 0o600, flag: "wx" });
  renameSync(temp, path);
  return next;
}
