/** The agent's ACP bounds are in UTF-8 bytes, and a cut never splits a character. */
import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import {
  boundContent,
  boundLocations,
  boundPlanEntry,
  boundRawOutput,
  boundTitle,
  CONTENT_TEXT_CAP_BYTES,
  CONTENT_TOTAL_BYTES,
  cutUtf8,
  LOCATION_PATH_BYTES,
  MAX_LOCATIONS,
  MAX_TOOL_INPUT_BYTES,
  MESSAGE_CHUNK_BYTES,
  messageChunks,
  oversizedInput,
  PLAN_ENTRY_BYTES,
  RAW_INPUT_PREVIEW_BYTES,
  RAW_OUTPUT_BYTES,
  rawInputPreview,
  TITLE_CAP_BYTES,
  toolCallIdFor,
  utf8Bytes,
} from "../../../src/builtin-agent/acp-bounds.ts";

const EURO = "€"; // 1 UTF-16 unit, 3 UTF-8 bytes
const EMOJI = "😀"; // 2 UTF-16 units (a surrogate pair), 4 UTF-8 bytes
/** True when `text` has no unpaired surrogate (what a cut inside a pair would leave). */
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

describe("cutUtf8", () => {
  test("keeps whole characters only, at any byte bound", () => {
    const text = `a${EURO}${EMOJI}b`;
    const expected = ["", "a", "a", "a", `a${EURO}`, `a${EURO}`, `a${EURO}`, `a${EURO}`, `a${EURO}${EMOJI}`, text];
    for (let max = 0; max <= 9; max++) expect(cutUtf8(text, max)).toBe(expected[max]!);
  });

  test("a long run of surrogate pairs is never cut inside a pair", () => {
    for (const max of [4095, 4096, 4097, 4098, 4099]) {
      const cut = cutUtf8(EMOJI.repeat(5000), max);
      expect(wellFormed(cut)).toBe(true);
      expect(utf8Bytes(cut)).toBe(Math.floor(max / 4) * 4);
    }
  });
});

describe("bounds count bytes, not characters", () => {
  test("a title of 5.9 million € (17.7 MB) is cut to TITLE_CAP_BYTES", () => {
    const title = boundTitle(EURO.repeat(5_900_000));
    expect(utf8Bytes(title)).toBeLessThanOrEqual(TITLE_CAP_BYTES);
    expect(title.endsWith("…")).toBe(true);
    expect(boundTitle("Read notes.txt")).toBe("Read notes.txt");
  });

  test("a title just under the bound in characters but over it in bytes is cut", () => {
    const title = EURO.repeat(TITLE_CAP_BYTES - 1);
    expect(title.length).toBeLessThan(TITLE_CAP_BYTES);
    expect(utf8Bytes(boundTitle(title))).toBeLessThanOrEqual(TITLE_CAP_BYTES);
  });

  test("a plan entry of 5.9 million € is cut to PLAN_ENTRY_BYTES", () => {
    expect(utf8Bytes(boundPlanEntry(EURO.repeat(5_900_000)))).toBeLessThanOrEqual(PLAN_ENTRY_BYTES);
  });

  test("tool arguments are refused by their byte size", () => {
    const arg = EURO.repeat(Math.ceil(MAX_TOOL_INPUT_BYTES / 3) + 1);
    expect(arg.length).toBeLessThan(MAX_TOOL_INPUT_BYTES);
    expect(oversizedInput(arg)).toContain(`${utf8Bytes(arg)} bytes`);
    expect(oversizedInput("{}")).toBeNull();
  });

  test("rawInput over the preview bound becomes a preview of whole characters", () => {
    const input = JSON.stringify({ pattern: EMOJI.repeat(RAW_INPUT_PREVIEW_BYTES) });
    const preview = rawInputPreview(input, JSON.parse(input)) as { truncated: boolean; totalBytes: number; preview: string };
    expect(preview.truncated).toBe(true);
    expect(preview.totalBytes).toBe(utf8Bytes(input));
    expect(utf8Bytes(preview.preview)).toBeLessThanOrEqual(RAW_INPUT_PREVIEW_BYTES);
    expect(wellFormed(preview.preview)).toBe(true);
  });

  test("rawOutput whose JSON is over its bound is replaced by its size", () => {
    expect(boundRawOutput({ ok: true })).toEqual({ ok: true });
    const big = { text: EURO.repeat(RAW_OUTPUT_BYTES) };
    expect(boundRawOutput(big)).toEqual({ truncated: true, totalBytes: utf8Bytes(JSON.stringify(big)) });
  });

  test("locations: at most MAX_LOCATIONS, each path cut to LOCATION_PATH_BYTES", () => {
    const locations = boundLocations(Array.from({ length: MAX_LOCATIONS + 5 }, () => ({ path: `/ws/${EURO.repeat(LOCATION_PATH_BYTES)}`, line: 3 })));
    expect(locations).toHaveLength(MAX_LOCATIONS);
    for (const l of locations) {
      expect(utf8Bytes(l.path)).toBeLessThanOrEqual(LOCATION_PATH_BYTES);
      expect(l.line).toBe(3);
    }
  });

  test("content: a text block is cut in bytes, and blocks past the total are replaced by one note", () => {
    const text = (t: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text: t } });
    const [one] = boundContent([text(EURO.repeat(CONTENT_TEXT_CAP_BYTES))]);
    const cut = (one as { content: { text: string } }).content.text;
    expect(cut).toContain("[cut for the client:");
    expect(utf8Bytes(cut)).toBeLessThan(CONTENT_TEXT_CAP_BYTES + 100);

    const many = boundContent(Array.from({ length: 100 }, () => text("x".repeat(CONTENT_TEXT_CAP_BYTES))));
    expect(utf8Bytes(JSON.stringify(many))).toBeLessThanOrEqual(CONTENT_TOTAL_BYTES + 200);
    expect(JSON.stringify(many.at(-1))).toContain("more content blocks not shown");
  });
});

describe("messageChunks", () => {
  test("splits long text into pieces of at most MESSAGE_CHUNK_BYTES that join back to it", () => {
    const text = `${"a".repeat(1000)}${EMOJI.repeat(MESSAGE_CHUNK_BYTES)}${EURO.repeat(MESSAGE_CHUNK_BYTES)}`;
    const pieces = messageChunks(text);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) {
      expect(utf8Bytes(piece)).toBeLessThanOrEqual(MESSAGE_CHUNK_BYTES);
      expect(wellFormed(piece)).toBe(true);
    }
    expect(messageChunks("short")).toEqual(["short"]);
    expect(messageChunks("")).toEqual([""]);
  });
});

test("tool-call ids are the agent's own: short and unique", () => {
  const ids = new Set(Array.from({ length: 1000 }, toolCallIdFor));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(id.length).toBeLessThanOrEqual(64);
});

test("a pair straddling the window's end is left whole for the next piece", () => {
  const text = `${"a".repeat(MESSAGE_CHUNK_BYTES - 1)}${EMOJI}`;
  expect(messageChunks(text)).toEqual(["a".repeat(MESSAGE_CHUNK_BYTES - 1), EMOJI]);
  expect(cutUtf8(text, MESSAGE_CHUNK_BYTES)).toBe("a".repeat(MESSAGE_CHUNK_BYTES - 1));
});
