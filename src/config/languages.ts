/**
 * The languages `POST /language` and `POST /session/:id/language` accept (the reference's codes,
 * plus `auto`), and the name the agent is told to answer in. `auto`: answer in the user's language.
 */
export const LANGUAGES: readonly { readonly code: string; readonly fullName: string }[] = [
  { code: "en", fullName: "English" },
  { code: "zh-TW", fullName: "Traditional Chinese" },
  { code: "zh", fullName: "Chinese" },
  { code: "ru", fullName: "Russian" },
  { code: "de", fullName: "German" },
  { code: "ja", fullName: "Japanese" },
  { code: "pt", fullName: "Portuguese" },
  { code: "fr", fullName: "French" },
  { code: "ca", fullName: "Catalan" },
];

export const AUTO_LANGUAGE = "auto";
export const LANGUAGE_CODES: readonly string[] = [...LANGUAGES.map((l) => l.code), AUTO_LANGUAGE];

/** The output language a code stands for: its full name, or `auto`. */
export function outputLanguageOf(code: string): string {
  return LANGUAGES.find((l) => l.code === code)?.fullName ?? AUTO_LANGUAGE;
}

/** The system prompt's line for an output language (null: none, the model picks). */
export function languageRule(outputLanguage: string | null): string | null {
  if (outputLanguage === null) return null;
  if (outputLanguage === AUTO_LANGUAGE) return "Answer in the language of the user's message; keep code, commands, paths and identifiers as they are.";
  return `Always answer in ${outputLanguage}, whatever language the user writes in, unless the user explicitly asks for another; keep code, commands, paths and identifiers as they are.`;
}
