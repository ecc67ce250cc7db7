/** Workspace display names (pure): what the registration routes keep, and what they refuse as 400 `invalid_display_name`. */
import { describe, expect, test } from "bun:test";
import { MAX_BLANK_RUN, MAX_DISPLAY_NAME_LENGTH, MAX_STACKED_MARKS, normalizeDisplayName } from "../../../src/workspace-registry/display-name.ts";

const refused = (name: string) => {
  try {
    normalizeDisplayName(name);
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return "kept";
};

describe("normalizeDisplayName", () => {
  test("keeps a name in any script, emoji with their variation selector, and stacks a script needs", () => {
    for (const name of ["api", "Tiếng Việt", "हिन्दी", "日本語 ⟨docs⟩", "❤️ home", "བསྒྲུབས", `a${"\u0301".repeat(MAX_STACKED_MARKS)}`]) expect(normalizeDisplayName(name)).toBe(name);
    expect(normalizeDisplayName("  padded\u3000")).toBe("padded");
    expect(normalizeDisplayName(" ")).toBeNull();
  });

  test("keeps joiners that are writing: emoji sequences, Persian, Sinhala, Devanagari, and a subdivision flag's tags", () => {
    const scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
    for (const name of ["👩\u200D💻 dev", "🏳️\u200D🌈", "می\u200Cخواهم", "ශ්\u200Dරී ලංකා", "र्\u200Dय", `${scotland} home`, `a${" ".repeat(MAX_BLANK_RUN)}b`]) expect(normalizeDisplayName(name)).toBe(name);
  });

  test("refuses joiners and tags that are not: at an end, doubled, beside a space, tags off a flag", () => {
    for (const name of ["a\u200D", "\u200Db", "a\u200D\u200Db", "a \u200Db", "a\u{E0067}\u{E007F}", "\u{1F3F4}\u{E0067}"]) expect(refused(name)).toBe("invalid_display_name");
  });

  test("refuses what pushes a name apart or piles marks on nothing: long runs of spaces, marks after a space", () => {
    expect(refused(`main${"\u2003".repeat(MAX_BLANK_RUN + 1)}(old)`)).toBe("invalid_display_name");
    expect(refused(`a ${"\u0301".repeat(3)} b`)).toBe("invalid_display_name");
  });

  test("refuses controls and invisible format characters", () => {
    for (const name of ["a\u0007b", "a\u0085b", "a\u202Eb", "a\u200Bb", "a\u2028b", "a\u{E0041}", "a\uD800b", "a\u202E\u200Db"]) expect(refused(name)).toBe("invalid_display_name");
  });

  test("refuses what shows as nothing or as something else: fillers, blanks, private use, unassigned", () => {
    // Hangul fillers, the halfwidth filler, the braille blank, the combining grapheme joiner, a Khmer
    // inherent vowel, the Mongolian vowel separator, a private-use and an unassigned code point.
    for (const name of ["\u3164", "\u115F\u1160", "\uFFA0", "\u2800", "a\u034Fb", "a\u17B4b", "a\u180Eb", "\uE000", "\u{F0000}", "\u0378"]) expect(refused(name)).toBe("invalid_display_name");
  });

  test("refuses a combining mark with no letter before it, and more than the stack bound in a row", () => {
    expect(refused("\u0301\u0301")).toBe("invalid_display_name");
    expect(refused("\uFE0F")).toBe("invalid_display_name");
    expect(refused(`primary${"\u0336".repeat(MAX_STACKED_MARKS + 1)}`)).toBe("invalid_display_name");
    expect(refused(`x${"\u0489".repeat(200)}`)).toBe("invalid_display_name");
  });

  test("bounds the length in characters", () => {
    expect(normalizeDisplayName("x".repeat(MAX_DISPLAY_NAME_LENGTH))).toHaveLength(MAX_DISPLAY_NAME_LENGTH);
    expect(refused("x".repeat(MAX_DISPLAY_NAME_LENGTH + 1))).toBe("invalid_display_name");
  });
});
