/** The web UI's text splitters: markdown blocks and plain-text pieces, and their prefix stability. */
import { describe, expect, test } from "bun:test";
import { splitBlocks, splitPieces } from "../../src/web/text-blocks.ts";

describe("splitBlocks", () => {
  test("splits at blank lines, never inside a code fence; joining the blocks gives the text back", () => {
    const text = "# Title\n\npara one\nline\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n- item\n";
    const blocks = splitBlocks(text);
    expect(blocks).toEqual(["# Title\n\n", "para one\nline\n\n", "```js\nconst a = 1;\n\nconst b = 2;\n```\n\n", "- item\n"]);
    expect(blocks.join("")).toBe(text);
  });

  test("prefix-stable: re-splitting from the last block of any prefix matches splitting the whole", () => {
    const text = "a\n\n~~~\nx\n\ny\n~~~\nb\n\n\nc\nd\n\n```\n\n";
    for (let cut = 1; cut <= text.length; cut++) {
      const prefix = splitBlocks(text.slice(0, cut));
      const offset = cut - prefix[prefix.length - 1]!.length;
      expect(prefix.slice(0, -1).concat(splitBlocks(text.slice(offset)))).toEqual(splitBlocks(text));
    }
  });
});

describe("splitPieces", () => {
  test("cuts every 100 lines; prefix-stable", () => {
    const text = Array.from({ length: 250 }, (_, i) => `line ${i}\n`).join("") + "tail";
    const pieces = splitPieces(text);
    expect(pieces.map((p) => p.split("\n").length - 1)).toEqual([100, 100, 50]);
    expect(pieces.join("")).toBe(text);
    for (const cut of [1, 7, 700, 1200, text.length]) {
      const prefix = splitPieces(text.slice(0, cut));
      const offset = cut - prefix[prefix.length - 1]!.length;
      expect(prefix.slice(0, -1).concat(splitPieces(text.slice(offset)))).toEqual(pieces);
    }
  });
});
