/** The web UI's pure text helpers (issue 29): long lines cut, viewer rows, inline markdown as words, durations, date groups, titles. */
import { describe, expect, test } from "bun:test";
import { dateGroup, formatDuration } from "../../../src/web/format.ts";
import { inlinePlain } from "../../../src/web/inline-plain.ts";
import { cutLongLines, MAX_LINE_CHARS, rowsOf } from "../../../src/web/long-lines.ts";

describe("cutLongLines", () => {
  test("a text without a long line stays one piece", () => {
    expect(cutLongLines("a\nb")).toEqual(["a\nb"]);
    const lines = `${"x".repeat(MAX_LINE_CHARS)}\n${"y".repeat(MAX_LINE_CHARS)}`;
    expect(cutLongLines(lines)).toEqual([lines]);
  });

  test("a line past the bound shows its head; the whole line is kept for the viewer; the lines around it stay", () => {
    const long = "z".repeat(MAX_LINE_CHARS + 1);
    expect(cutLongLines(`before\n${long}\nafter`)).toEqual(["before\n", { head: "z".repeat(MAX_LINE_CHARS), full: long }, "\nafter"]);
    expect(cutLongLines(long)).toEqual([{ head: "z".repeat(MAX_LINE_CHARS), full: long }]);
  });

  test("a 1 MB unbroken run costs a bounded piece", () => {
    const [part] = cutLongLines("Q".repeat(1_000_000));
    expect(typeof part === "object" && part.head.length).toBe(MAX_LINE_CHARS);
  });
});

describe("rowsOf", () => {
  test("each line is split into rows of the width; empty lines are rows too", () => {
    const rows = [...rowsOf("abcdefg\n\nhi", 3)];
    const pairs = [];
    for (let i = 0; i < rows.length; i += 2) pairs.push([rows[i], rows[i + 1]]);
    expect(pairs).toEqual([[0, 3], [3, 6], [6, 7], [8, 8], [9, 11]]);
  });
});

describe("inlinePlain", () => {
  test("inline markdown reads as words; only the first paragraph is kept", () => {
    expect(inlinePlain("**Read** `src/a.ts` and [the docs](http://x)")).toBe("Read src/a.ts and the docs");
    expect(inlinePlain("## Runs a *shell* command\n\nMore detail.")).toBe("Runs a shell command");
    expect(inlinePlain("snake_case_name stays")).toBe("snake_case_name stays");
  });
});

describe("format", () => {
  test("durations", () => {
    expect([850, 4200, 12_000, 184_000].map(formatDuration)).toEqual(["850 ms", "4.2 s", "12 s", "3 min 4 s"]);
  });

  test("date groups from the local day", () => {
    const now = new Date(2026, 5, 15, 9, 0).getTime();
    const day = (d: number, h = 12) => new Date(2026, 5, 15 - d, h).getTime();
    expect([day(0, 1), day(1, 23), day(3), day(12), day(60)].map((t) => dateGroup(t, now))).toEqual(["Today", "Yesterday", "Previous 7 days", "Previous 30 days", "Older"]);
  });
});

describe("highlight", () => {
  test("keywords, strings, numbers and a line comment; unknown languages and long lines stay plain", async () => {
    const { highlightLine, MAX_HIGHLIGHT_CHARS } = await import("../../../src/web/highlight.ts");
    const { languageOf } = await import("../../../src/web/languages.ts");
    const tokens = highlightLine('const url = "http://x"; // 42 things', languageOf("a.ts"));
    expect(tokens).toEqual([
      { text: "const", kind: "kw" },
      { text: " url = ", kind: null },
      { text: '"http://x"', kind: "str" },
      { text: "; ", kind: null },
      { text: "// 42 things", kind: "com" },
    ]);
    expect(highlightLine("x = 3 # n", languageOf("py"))).toEqual([{ text: "x = ", kind: null }, { text: "3", kind: "num" }, { text: " ", kind: null }, { text: "# n", kind: "com" }]);
    expect(languageOf("primary")).toBeUndefined();
    expect(highlightLine("const x", undefined)).toEqual([{ text: "const x", kind: null }]);
    const long = `const ${"x".repeat(MAX_HIGHLIGHT_CHARS)}`;
    expect(highlightLine(long, "js")).toEqual([{ text: long, kind: null }]);
  });

  test("fence languages in order; a closing fence is not an opener", async () => {
    const { fenceLanguages } = await import("../../../src/web/components/highlighted.tsx");
    expect(fenceLanguages("text\n```ts\na\n```\n~~~\nb\n~~~\n````py\n```\n````")).toEqual(["ts", "", "py"]);
  });
});
