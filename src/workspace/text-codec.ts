/**
 * Text encodings of workspace files: detection on read, encoding on write, line-ending handling and
 * byte-bounded truncation. Pure functions over bytes and strings.
 *
 * Detection order: a BOM (UTF-8, UTF-16LE, UTF-16BE) decides; otherwise a NUL byte means binary;
 * otherwise valid UTF-8 is UTF-8 and anything else is windows-1252 (every byte decodes).
 */
import { parseError } from "./fs-errors.ts";

export const TEXT_ENCODINGS = ["utf-8", "utf-16le", "utf-16be", "windows-1252"] as const;
export type TextEncodingName = (typeof TEXT_ENCODINGS)[number];
export const LINE_ENDINGS = ["lf", "crlf"] as const;
export type LineEnding = (typeof LINE_ENDINGS)[number];

export interface DecodedText {
  readonly encoding: TextEncodingName;
  readonly bom: boolean;
  /** The text without its BOM. */
  readonly text: string;
}

const BOMS: readonly (readonly [TextEncodingName, readonly number[]])[] = [
  ["utf-8", [0xef, 0xbb, 0xbf]],
  ["utf-16le", [0xff, 0xfe]],
  ["utf-16be", [0xfe, 0xff]],
];

function bomOf(bytes: Uint8Array): TextEncodingName | null {
  for (const [encoding, bom] of BOMS) if (bom.every((b, i) => bytes[i] === b)) return encoding;
  return null;
}

/** Strict decode; null when the bytes are not valid in `encoding`. `partial` drops a cut-off tail. */
function strictDecode(bytes: Uint8Array, encoding: TextEncodingName, partial: boolean): string | null {
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes, { stream: partial });
  } catch {
    return null;
  }
}

/**
 * Decodes file bytes, or returns null for binary content. `partial` says `bytes` is a prefix of the
 * file, so a multi-byte character cut at its end is dropped rather than taken as invalid.
 */
export function decodeText(bytes: Uint8Array, partial = false): DecodedText | null {
  const bomEncoding = bomOf(bytes);
  if (bomEncoding === "utf-16le" || bomEncoding === "utf-16be") {
    const text = strictDecode(bytes.subarray(2), bomEncoding, partial);
    return text === null || text.includes("\0") ? null : { encoding: bomEncoding, bom: true, text };
  }
  if (bytes.includes(0)) return null;
  if (bomEncoding === "utf-8") {
    const text = strictDecode(bytes.subarray(3), "utf-8", partial);
    if (text !== null) return { encoding: "utf-8", bom: true, text };
  } else {
    const text = strictDecode(bytes, "utf-8", partial);
    if (text !== null) return { encoding: "utf-8", bom: false, text };
  }
  return { encoding: "windows-1252", bom: false, text: new TextDecoder("windows-1252").decode(bytes) };
}

/** `crlf` when CRLF line breaks outnumber bare LF ones, else `lf` (also for text without breaks). */
export function detectLineEnding(text: string): LineEnding {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? "crlf" : "lf";
}

/** `text` with every line break (LF or CRLF) written as `lineEnding`. */
export function withLineEnding(text: string, lineEnding: LineEnding): string {
  const lf = text.replaceAll("\r\n", "\n");
  return lineEnding === "lf" ? lf : lf.replaceAll("\n", "\r\n");
}

/** Lines as the reference counts them: one more than the number of LF characters. */
export function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

let cp1252Table: Map<number, number> | null = null;

/** Code unit → byte for windows-1252, derived from the platform decoder (no hand-written table). */
function cp1252(): Map<number, number> {
  if (cp1252Table === null) {
    const chars = new TextDecoder("windows-1252").decode(Uint8Array.from({ length: 256 }, (_, i) => i));
    cp1252Table = new Map([...chars].map((c, byte) => [c.charCodeAt(0), byte]));
  }
  return cp1252Table;
}

/** File bytes for `text` in `encoding`, with a BOM when `bom`. Unencodable text is `parse_error`. */
export function encodeText(text: string, encoding: TextEncodingName, bom: boolean): Uint8Array {
  const prefix = bom ? BOMS.find(([e]) => e === encoding)?.[1] : undefined;
  if (bom && prefix === undefined) throw parseError(`${encoding} has no byte order mark; send bom: false`);
  let body: Uint8Array;
  if (encoding === "utf-8") body = Buffer.from(text, "utf8");
  else if (encoding === "utf-16le") body = Buffer.from(text, "utf16le");
  else if (encoding === "utf-16be") body = Buffer.from(text, "utf16le").swap16();
  else {
    const table = cp1252();
    body = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const byte = table.get(text.charCodeAt(i));
      if (byte === undefined) throw parseError(`content has characters windows-1252 cannot encode (first at offset ${i})`, "send encoding utf-8");
      body[i] = byte;
    }
  }
  if (prefix === undefined) return body;
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix);
  out.set(body, prefix.length);
  return out;
}

/** Byte length of `text` in `encoding`, BOM excluded. */
export function encodedLength(text: string, encoding: TextEncodingName): number {
  if (encoding === "utf-8") return Buffer.byteLength(text, "utf8");
  return encoding === "windows-1252" ? text.length : text.length * 2;
}

/** The longest prefix of `text` whose encoding fits in `maxBytes`, never splitting a character. */
export function truncateToBytes(text: string, encoding: TextEncodingName, maxBytes: number): string {
  if (encodedLength(text, encoding) <= maxBytes) return text;
  if (encoding === "utf-8") {
    const bytes = Buffer.from(text, "utf8");
    let end = maxBytes;
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // back off to the start of a character
    return bytes.subarray(0, end).toString("utf8");
  }
  let units = encoding === "windows-1252" ? maxBytes : Math.floor(maxBytes / 2);
  const last = text.charCodeAt(units - 1);
  if (units > 0 && last >= 0xd800 && last <= 0xdbff) units--; // keep surrogate pairs whole
  return text.slice(0, units);
}
