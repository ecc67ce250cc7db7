/** The byte scan that refuses deeply nested JSON before it is parsed (`nestsDeeperThan`). */
import { describe, expect, test } from "bun:test";
import { nestsDeeperThan } from "../../../src/server/json-body.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const deeper = (text: string, max = 3) => nestsDeeperThan(bytes(text), max);
const arrays = (depth: number, inner = "") => "[".repeat(depth) + inner + "]".repeat(depth);

describe("nestsDeeperThan", () => {
  test("counts arrays and objects alike, up to and past the bound", () => {
    expect(deeper(arrays(3))).toBe(false);
    expect(deeper(arrays(4))).toBe(true);
    expect(deeper('{"a":{"b":{"c":1}}}')).toBe(false);
    expect(deeper('{"a":{"b":{"c":[1]}}}')).toBe(true);
    expect(deeper('[{"a":[{}]}]')).toBe(true);
  });

  test("siblings do not add up: depth is how deep, not how many", () => {
    expect(deeper("[" + "[[]],".repeat(1000) + "[[]]]")).toBe(false);
  });

  test("scalars and empty input nest nowhere", () => {
    for (const text of ["", "1", '"[[[[[["', "null", "   "]) expect(deeper(text, 0)).toBe(false);
  });

  test("brackets inside strings do not count, whatever the escapes before the closing quote", () => {
    expect(deeper(JSON.stringify(["[[[[[[", "{{{{{{"]))).toBe(false);
    expect(deeper(JSON.stringify(['say "[[[[[["', "]]]]"]))).toBe(false);
    // A string ending in backslashes: the quote after an even run closes it, and what follows counts.
    expect(deeper(JSON.stringify(["\\", JSON.parse(arrays(3))]))).toBe(true);
    expect(deeper(JSON.stringify(["\\\\", JSON.parse(arrays(3))]))).toBe(true);
    expect(deeper(JSON.stringify(['\\"[[[[', JSON.parse(arrays(2))]))).toBe(false);
    expect(deeper(JSON.stringify(['\\"[[[[', JSON.parse(arrays(3))]))).toBe(true);
  });

  test("long strings are skipped as exactly as short ones", () => {
    const long = "x".repeat(100);
    expect(deeper(JSON.stringify([long + "[[[[" + long, JSON.parse(arrays(2))]))).toBe(false);
    expect(deeper(JSON.stringify([long + '"' + long + "[[[[", JSON.parse(arrays(2))]))).toBe(false);
    expect(deeper(JSON.stringify([long + "\\", JSON.parse(arrays(3))]))).toBe(true);
    expect(deeper(JSON.stringify([long + '\\"[[[[' + long, JSON.parse(arrays(2))]))).toBe(false);
    expect(deeper(JSON.stringify([long + '\\"' + long, JSON.parse(arrays(3))]))).toBe(true);
    expect(deeper(JSON.stringify(["a\\b\\".repeat(50) + long, long + '\\"' + long, JSON.parse(arrays(3))]))).toBe(true);
    expect(deeper('["' + long + "[[[[")).toBe(false);
  });

  test("multi-byte UTF-8 is passed over", () => {
    expect(deeper(JSON.stringify(["ä€😀[[[[", { "ключ": ["日本"] }]))).toBe(false);
    expect(deeper(JSON.stringify(["ä€😀", [[["日本"]]]]))).toBe(true);
  });

  test("an unterminated string ends the scan (JSON.parse will refuse the document)", () => {
    expect(deeper('["abc' + arrays(10))).toBe(false);
  });

  test("50,000 levels are caught without recursion", () => {
    expect(nestsDeeperThan(bytes(arrays(50_000)), 64)).toBe(true);
  });
});
