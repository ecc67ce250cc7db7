/** `applySingleEdit`: exactly one occurrence is replaced; CRLF files accept LF-written search text. */
import { describe, expect, test } from "bun:test";
import { applySingleEdit } from "../../../src/workspace/text-edit.ts";

describe("applySingleEdit", () => {
  test("replaces the one occurrence", () => {
    expect(applySingleEdit("a = 1;\nb = 2;\n", "b = 2", "b = 3", "lf")).toEqual({ kind: "edited", text: "a = 1;\nb = 3;\n" });
  });

  test("replacement text is literal ($& and $1 are not patterns)", () => {
    expect(applySingleEdit("x", "x", "$&$1$$", "lf")).toEqual({ kind: "edited", text: "$&$1$$" });
  });

  test("no occurrence and several occurrences are told apart", () => {
    expect(applySingleEdit("abc", "z", "y", "lf")).toEqual({ kind: "not_found" });
    expect(applySingleEdit("ab ab ab", "ab", "y", "lf")).toEqual({ kind: "ambiguous", occurrences: 3 });
  });

  test("in a CRLF file, LF search text matches and the replacement gets CRLF", () => {
    expect(applySingleEdit("one\r\ntwo\r\nthree\r\n", "one\ntwo", "1\n2", "crlf")).toEqual({ kind: "edited", text: "1\r\n2\r\nthree\r\n" });
  });

  test("in an LF file, search text is never rewritten", () => {
    expect(applySingleEdit("one\ntwo\n", "one\r\ntwo", "x", "lf")).toEqual({ kind: "not_found" });
  });
});
