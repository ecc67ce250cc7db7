/**
 * Reads for the file routes: `/file` (text, with optional line and byte windows), `/file/bytes`
 * (base64 windows of any file) and `/stat`. Every read goes through the contained open, so it
 * reads the descriptor that was verified to lie inside the workspace.
 */
import { constants } from "node:fs";
import { lstat, type FileHandle } from "node:fs/promises";
import { FsError } from "../errors/daemon-error.ts";
import { contentHash } from "./content-hash.ts";
import { checkSymlink, openContained, resolveExisting, resolveParent } from "./contained-fs.ts";
import { LINE_SCAN_CAP_BYTES, TEXT_READ_CAP_BYTES } from "./file-limits.ts";
import { fromErrno, notRegularFile, shownPath } from "./fs-errors.ts";
import { IgnoreRules, type IgnoreMatch } from "./ignore-rules.ts";
import { countLines, decodeText, detectLineEnding, encodedLength, truncateToBytes, type LineEnding, type TextEncodingName } from "./text-codec.ts";

export interface TextWindow {
  /** Most bytes of content to return (1..MAX_BYTES_WINDOW). */
  readonly maxBytes?: number;
  /** First line to return, 1-based. */
  readonly line?: number;
  /** Most lines to return. */
  readonly limit?: number;
}

export interface TextFile {
  readonly kind: "file";
  readonly path: string;
  readonly content: string;
  readonly encoding: TextEncodingName;
  readonly bom: boolean;
  readonly lineEnding: LineEnding;
  readonly sizeBytes: number;
  readonly returnedBytes: number;
  readonly truncated: boolean;
  /** Over the whole file's raw bytes; absent when the file was larger than the read cap. */
  readonly hash?: string;
  readonly matchedIgnore: IgnoreMatch;
  /** Null when the file was larger than the read cap (not every line was seen). */
  readonly originalLineCount: number | null;
  readonly nextCursor: null;
  readonly hasMore: boolean;
}

export interface FileBytes {
  readonly kind: "file_bytes";
  readonly path: string;
  readonly offset: number;
  readonly sizeBytes: number;
  readonly returnedBytes: number;
  readonly truncated: boolean;
  readonly contentBase64: string;
  /** Present only when the window covered the whole file. */
  readonly hash?: string;
}

export interface FileStat {
  readonly kind: "stat";
  readonly path: string;
  readonly type: "file" | "directory" | "symlink" | "other";
  readonly sizeBytes: number;
  readonly modifiedMs: number;
}

/** Bytes of slack read past a byte window so the character cut at its end can be recognised. */
const CHARACTER_SLACK_BYTES = 8;

/** Opens `rel` for reading after resolving it; it must be a regular file. Returns handle and size. */
export async function openRegularFile(root: string, rel: string): Promise<{ handle: FileHandle; size: number }> {
  return await openRegularReal(root, await resolveExisting(root, rel), rel);
}

/** As `openRegularFile`, for `rel` already resolved to `real`. */
export async function openRegularReal(root: string, real: string, rel: string): Promise<{ handle: FileHandle; size: number }> {
  const handle = await openContained(root, real, rel, constants.O_RDONLY);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw notRegularFile(rel);
    return { handle, size: st.size };
  } catch (err) {
    await handle.close();
    throw fromErrno(err, rel);
  }
}

/** Reads up to `length` bytes from `position`; fewer at end of file. */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buf, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buf.subarray(0, filled);
}

/** Offset in `text` where 1-based line `line` starts, or -1 when the text has fewer lines. */
function lineStart(text: string, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) {
    const lf = text.indexOf("\n", offset);
    if (lf === -1) return -1;
    offset = lf + 1;
  }
  return offset;
}

/** Offset just past `count` lines starting at `from` (their line breaks included), capped at the end. */
function linesEnd(text: string, from: number, count: number): number {
  let offset = from;
  for (let n = 0; n < count; n++) {
    const lf = text.indexOf("\n", offset);
    if (lf === -1) return text.length;
    offset = lf + 1;
  }
  return offset;
}

export async function readText(root: string, rel: string, window: TextWindow): Promise<TextFile> {
  const windowed = window.maxBytes !== undefined || window.line !== undefined || window.limit !== undefined;
  const byLines = window.line !== undefined || window.limit !== undefined;
  const { handle, size } = await openRegularFile(root, rel);
  let bytes: Buffer;
  /** Everything the file holds was read (so the window can tell where the file ends). */
  let complete: boolean;
  /** Within the read cap: only then are the hash and the line count reported, as for a whole read. */
  let withinCap: boolean;
  try {
    if (size > TEXT_READ_CAP_BYTES && !windowed)
      throw new FsError(
        413,
        "file_too_large",
        `file of ${size} bytes exceeds read cap of ${TEXT_READ_CAP_BYTES} bytes`,
        "read a window with line/limit or maxBytes, or use /file/bytes",
      );
    withinCap = size <= TEXT_READ_CAP_BYTES;
    const toRead = withinCap ? size : Math.min(size, byLines ? LINE_SCAN_CAP_BYTES : window.maxBytes! + CHARACTER_SLACK_BYTES);
    bytes = await readAt(handle, 0, toRead);
    // Whole when everything fstat reported was read, or end of file came first (it shrank meanwhile).
    complete = toRead === size || bytes.length < toRead;
  } catch (err) {
    throw fromErrno(err, rel);
  } finally {
    await handle.close();
  }

  const decoded = decodeText(bytes, !complete);
  if (decoded === null) throw new FsError(422, "binary_file", `file appears to be binary: ${shownPath(rel)}`, "use /file/bytes for binary content");
  const { text, encoding } = decoded;

  let start = 0;
  let end = text.length;
  if (byLines) {
    start = lineStart(text, window.line ?? 1);
    if (start === -1) {
      if (!complete)
        throw new FsError(413, "file_too_large", `line ${window.line} lies beyond the first ${LINE_SCAN_CAP_BYTES} bytes scanned for lines`, "use /file/bytes with an offset");
      start = end;
    }
    end = window.limit === undefined ? text.length : linesEnd(text, start, window.limit);
  }
  let content = text.slice(start, end);
  const cap = window.maxBytes ?? TEXT_READ_CAP_BYTES;
  content = truncateToBytes(content, encoding, cap);
  end = start + content.length;

  return {
    kind: "file",
    path: shownPath(rel),
    content,
    encoding,
    bom: decoded.bom,
    lineEnding: detectLineEnding(text),
    sizeBytes: complete ? bytes.length : size,
    returnedBytes: encodedLength(content, encoding),
    truncated: start > 0 || end < text.length || !complete,
    ...(withinCap ? { hash: contentHash(bytes) } : {}),
    matchedIgnore: new IgnoreRules(root).match(rel, false),
    originalLineCount: withinCap ? countLines(text) : null,
    nextCursor: null,
    hasMore: end < text.length || !complete,
  };
}

export async function readBytes(root: string, rel: string, offset: number, maxBytes: number): Promise<FileBytes> {
  const { handle, size } = await openRegularFile(root, rel);
  let bytes: Buffer;
  try {
    bytes = offset >= size ? Buffer.alloc(0) : await readAt(handle, offset, Math.min(maxBytes, size - offset));
  } catch (err) {
    throw fromErrno(err, rel);
  } finally {
    await handle.close();
  }
  const wholeFile = offset === 0 && bytes.length === size;
  return {
    kind: "file_bytes",
    path: shownPath(rel),
    offset,
    sizeBytes: size,
    returnedBytes: bytes.length,
    truncated: offset + bytes.length < size,
    contentBase64: bytes.toString("base64"),
    ...(wholeFile ? { hash: contentHash(bytes) } : {}),
  };
}

/**
 * `lstat` semantics: a symlink is reported as one, never followed (so it cannot reveal its target),
 * but only when following it would stay inside the workspace: a link leading outside, directly or
 * through further links, is `symlink_escape` here as on every other file route.
 */
export async function statEntry(root: string, rel: string): Promise<FileStat> {
  const target = await resolveParent(root, rel);
  let st;
  try {
    st = await lstat(target);
  } catch (err) {
    throw fromErrno(err, rel);
  }
  if (st.isSymbolicLink()) await checkSymlink(root, rel);
  const type = st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : "other";
  return { kind: "stat", path: shownPath(rel), type, sizeBytes: st.size, modifiedMs: st.mtimeMs };
}
