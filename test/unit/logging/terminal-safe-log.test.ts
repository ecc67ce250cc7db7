import { describe, expect, test } from "bun:test";
import { Logger } from "../../../src/logging/logger.ts";
import { escapeControls, stripAnsi } from "../../../src/logging/terminal-text.ts";

/** Anything a terminal would act on instead of showing. */
const RAW_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function captured(format: "text" | "json") {
  const lines: string[] = [];
  const logger = new Logger("debug", format, { write: (chunk) => void lines.push(...chunk.split("\n").filter(Boolean)) });
  return { logger, lines };
}

describe("stripAnsi", () => {
  test.each([
    ["colours", "\u001b[1;31mred\u001b[0m", "red"],
    ["cursor moves and clears", "\u001b[2J\u001b[10;5Hmoved\u001b[K", "moved"],
    ["a title (OSC, BEL-terminated)", "\u001b]0;pwned\u0007after", "after"],
    ["a hyperlink (OSC, ST-terminated)", "\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\", "link"],
    ["a DCS string", "\u001bPq#0;2;0;0;0\u001b\\after", "after"],
    ["the 8-bit CSI", "\u009b31mred", "red"],
    ["two-character escapes", "\u001bcreset\u001b7saved", "resetsaved"],
  ])("removes %s", (_, input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });
});

describe("escapeControls", () => {
  test("makes C0, DEL, C1, line separators and bidi overrides visible; keeps tabs and ordinary text", () => {
    expect(escapeControls("a\u0000b\u001bc\u007fd\u0085e\u2028f\u202eg\th é")).toBe("a\\u0000b\\u001bc\\u007fd\\u0085e\\u2028f\\u202eg\th é");
  });
});

describe("Logger", () => {
  const hostile = "\u001b[31mred\u001b[0m\u0007\u007f\u009b2J\u2028\u202e";

  test.each(["text", "json"] as const)("%s lines carry no raw control character from a message, a key or a value", async (format) => {
    const { logger, lines } = captured(format);
    logger.warn(`msg ${hostile}`, { [`key${hostile}`]: hostile, plain: "ok" });
    await logger.flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(RAW_CONTROL);
    expect(lines[0]).toContain("\\u001b[31mred");
    if (format === "json") expect(JSON.parse(lines[0]!)).toMatchObject({ msg: `msg ${hostile}`, plain: "ok" });
  });

  test("text values without controls are written as before", async () => {
    const { logger, lines } = captured("text");
    logger.info("agent ready", { pid: 12, agent: "fake agent", profile: "generic" });
    await logger.flush();
    expect(lines[0]).toMatch(/ INFO agent ready pid=12 agent="fake agent" profile=generic$/);
  });
});
