/** Display names (pure): what a client may set and what an agent's title becomes. */
import { describe, expect, test } from "bun:test";
import { checkDisplayName, MAX_DISPLAY_NAME, titleFromAgent, truncateUtf16, type NameProblem } from "../../../src/sessions/display-name.ts";

describe("truncateUtf16", () => {
  test("cuts at the cap, one unit earlier when the cut would split a surrogate pair", () => {
    expect(truncateUtf16("abc", 5)).toBe("abc");
    expect(truncateUtf16("abcdef", 3)).toBe("abc");
    expect(truncateUtf16("ab😀", 3)).toBe("ab");
    expect(truncateUtf16("ab😀", 4)).toBe("ab😀");
    expect(truncateUtf16("a😀b", 3)).toBe("a😀");
  });
});

describe("checkDisplayName", () => {
  test("trims and caps a good name", () => {
    expect(checkDisplayName("  Fix it  ")).toEqual({ name: "Fix it" });
    expect(checkDisplayName("x".repeat(MAX_DISPLAY_NAME + 10))).toEqual({ name: "x".repeat(MAX_DISPLAY_NAME) });
    expect(checkDisplayName("naïve — 日本語 😀")).toEqual({ name: "naïve — 日本語 😀" });
  });

  test.each<[string, NameProblem]>([
    ["", "empty"],
    ["   ", "empty"],
    ["tab\there", "unsafe_characters"],
    ["del\u007f", "unsafe_characters"],
    ["c1\u0085", "unsafe_characters"],
    ["c1\u009f", "unsafe_characters"],
    ["rlo\u202e", "unsafe_characters"],
    ["lre\u202a", "unsafe_characters"],
    ["fsi\u2068", "unsafe_characters"],
    ["pdi\u2069", "unsafe_characters"],
    ["rlm\u200f", "unsafe_characters"],
    ["alm\u061c", "unsafe_characters"],
    ["ps\u2029", "unsafe_characters"],
    ["lone\ud83d", "malformed"],
  ])("%j is refused (%s)", (raw, problem) => {
    expect(checkDisplayName(raw)).toEqual({ problem });
  });
});

describe("titleFromAgent", () => {
  test("drops unsafe characters, repairs lone surrogates, trims and caps", () => {
    expect(titleFromAgent("  a\u202eb\u0085c\u2028d  ")).toBe("abcd");
    expect(titleFromAgent("x\ud800y")).toBe("x\ufffdy");
    expect(titleFromAgent("y".repeat(255) + "😀")).toBe("y".repeat(255));
  });
});
