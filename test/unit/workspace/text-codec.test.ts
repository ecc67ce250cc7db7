/** Encoding detection, encoding, line endings and byte-bounded truncation of file text. */
import { describe, expect, test } from "bun:test";
import { FsError } from "../../../src/errors/daemon-error.ts";
import {
  countLines,
  decodeText,
  detectLineEnding,
  encodeText,
  encodedLength,
  truncateToBytes,
  withLineEnding,
  type TextEncodingName,
} from "../../../src/workspace/text-codec.ts";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("decodeText", () => {
  test("plain UTF-8 without BOM", () => {
    expect(decodeText(Buffer.from("héllo ✓\n"))).toEqual({ encoding: "utf-8", bom: false, text: "héllo ✓\n" });
  });

  test("UTF-8 with BOM: the BOM is reported, not returned", () => {
    expect(decodeText(Buffer.from("\ufeffhi", "utf8"))).toEqual({ encoding: "utf-8", bom: true, text: "hi" });
  });

  test("UTF-16LE and UTF-16BE with BOM", () => {
    expect(decodeText(bytes(0xff, 0xfe, 0x68, 0x00, 0x69, 0x00))).toEqual({ encoding: "utf-16le", bom: true, text: "hi" });
    expect(decodeText(bytes(0xfe, 0xff, 0x00, 0x68, 0x00, 0x69))).toEqual({ encoding: "utf-16be", bom: true, text: "hi" });
  });

  test("high bytes that are not UTF-8 and no NUL decode as windows-1252", () => {
    expect(decodeText(bytes(0x63, 0x61, 0x66, 0xe9, 0x20, 0x80))).toEqual({ encoding: "windows-1252", bom: false, text: "café €" });
  });

  test("a NUL byte means binary", () => {
    expect(decodeText(bytes(0x61, 0x00, 0x62))).toBeNull();
    expect(decodeText(bytes(0xff, 0xfe, 0x00, 0x00))).toBeNull(); // UTF-16 text holding U+0000
  });

  test("a prefix cut inside a multi-byte character stays UTF-8 when marked partial", () => {
    const cut = Buffer.from("ab✓", "utf8").subarray(0, 4);
    expect(decodeText(cut, true)).toEqual({ encoding: "utf-8", bom: false, text: "ab" });
    expect(decodeText(cut, false)?.encoding).toBe("windows-1252");
  });
});

describe("encodeText round-trips through decodeText", () => {
  test.each<[TextEncodingName, boolean]>([
    ["utf-8", false],
    ["utf-8", true],
    ["utf-16le", true],
    ["utf-16be", true],
    ["windows-1252", false],
  ])("%s bom=%p", (encoding, bom) => {
    const text = "line one – café\r\nline two €\r\n";
    expect(decodeText(encodeText(text, encoding, bom))).toEqual({ encoding, bom, text });
  });

  test("windows-1252 refuses characters it cannot encode", () => {
    expect(() => encodeText("snow ☃", "windows-1252", false)).toThrow(FsError);
  });

  test("a BOM for windows-1252 is refused", () => {
    expect(() => encodeText("a", "windows-1252", true)).toThrow(/byte order mark/);
  });
});

describe("line endings", () => {
  test("detects the majority style; no breaks is lf", () => {
    expect(detectLineEnding("a\r\nb\r\nc\n")).toBe("crlf");
    expect(detectLineEnding("a\nb\nc\r\n")).toBe("lf");
    expect(detectLineEnding("no breaks")).toBe("lf");
  });

  test("withLineEnding rewrites every break", () => {
    expect(withLineEnding("a\nb\r\nc", "crlf")).toBe("a\r\nb\r\nc");
    expect(withLineEnding("a\r\nb\nc", "lf")).toBe("a\nb\nc");
  });

  test("countLines counts one more than the LF characters", () => {
    expect(countLines("hello world\n")).toBe(2);
    expect(countLines("")).toBe(1);
    expect(countLines("a\r\nb")).toBe(2);
  });
});

describe("truncateToBytes", () => {
  test("never splits a UTF-8 character", () => {
    expect(truncateToBytes("a✓b", "utf-8", 3)).toBe("a");
    expect(truncateToBytes("a✓b", "utf-8", 4)).toBe("a✓");
  });

  test("never splits a UTF-16 surrogate pair", () => {
    expect(truncateToBytes("a😀", "utf-16le", 4)).toBe("a");
    expect(truncateToBytes("a😀", "utf-16le", 6)).toBe("a😀");
  });

  test("counts bytes in the file's encoding", () => {
    expect(encodedLength("é", "utf-8")).toBe(2);
    expect(encodedLength("é", "windows-1252")).toBe(1);
    expect(encodedLength("é", "utf-16be")).toBe(2);
    expect(truncateToBytes("éé", "windows-1252", 1)).toBe("é");
  });
});
