/**
 * Workspace path containment, the pure part: turns a path from a request into a normalized
 * workspace-relative path ("" is the root) or refuses it. No filesystem access here; symlinks are
 * `contained-fs.ts`'s job.
 *
 * Accepted: relative paths (`a/b`, `./a//b/`, `.`) and absolute paths that lie lexically inside the
 * workspace's canonical path (they are made relative). Refused with `path_outside_workspace`:
 * - any `..` segment, even one that would stay inside: the kernel resolves `link/..` against the
 *   link's target while a lexical resolution would not, and no client needs them;
 * - absolute paths elsewhere, Windows drive prefixes (`C:`), backslashes (Windows separators);
 * - NUL and other control characters;
 * - percent-escapes left after the framework's single decoding pass that decode to something
 *   dangerous (`%2e`, `%2f`, `%5c`, `%25`, control or non-ASCII bytes, `%uXXXX`): a second decoding
 *   layer somewhere would turn them into traversal, so they are refused rather than trusted;
 * - on Windows only, device names (`con`, `nul`, `aux`, `com1`… with any extension), which Windows
 *   opens as devices in any folder; elsewhere `aux.c` and `con/` are ordinary names;
 * - NTFS stream suffixes;
 * - any of the above appearing after Unicode compatibility normalization (fullwidth `．．／`).
 * Too long (over PATH_MAX / NAME_MAX bytes) or empty paths are `parse_error`.
 */
import { MAX_NAME_BYTES, MAX_PATH_BYTES } from "./file-limits.ts";
import { outsideWorkspace, parseError } from "./fs-errors.ts";

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const PERCENT_ESCAPE = /%([0-9a-f]{2})|%u[0-9a-f]{4}/gi;
const DRIVE_PREFIX = /^[a-z]:/i;
const NTFS_STREAM = /::\$|:\$data$/i;
/** Device names Windows resolves in any directory, whatever the extension or trailing spaces. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)$/i;

/** True for a `%XX` / `%uXXXX` left in an already-decoded path that decodes to something unsafe. */
function hasSuspiciousEscape(path: string): boolean {
  for (const match of path.matchAll(PERCENT_ESCAPE)) {
    if (match[1] === undefined) return true;
    const byte = Number.parseInt(match[1], 16);
    if (byte < 0x20 || byte >= 0x7f || byte === 0x25 || byte === 0x2e || byte === 0x2f || byte === 0x5c) return true;
  }
  return false;
}

function isWindowsDevice(segment: string): boolean {
  const stem = segment.split(".")[0]!.trimEnd();
  return WINDOWS_DEVICE.test(stem);
}

/** Segment checks shared by the raw and the compatibility-normalized spelling. */
function checkSegments(segments: readonly string[], platform: NodeJS.Platform): void {
  for (const segment of segments) {
    if (segment === "..") throw outsideWorkspace("'..' segments are not allowed");
    if (segment.includes("\\")) throw outsideWorkspace("suspicious pattern (backslash)");
    if (platform === "win32" && isWindowsDevice(segment)) throw outsideWorkspace("suspicious pattern (reserved device name)");
    if (NTFS_STREAM.test(segment)) throw outsideWorkspace("suspicious pattern (alternate data stream)");
  }
}

const segmentsOf = (path: string) => path.split("/").filter((s) => s !== "" && s !== ".");

/**
 * The normalized workspace-relative form of `raw` ("" for the workspace root), or an FsError.
 * `root` is the workspace's canonical absolute path; `platform` decides whether device names are refused.
 */
export function normalizeRequestPath(root: string, raw: string, platform: NodeJS.Platform = process.platform): string {
  if (raw === "") throw parseError("path is required");
  if (Buffer.byteLength(raw) > MAX_PATH_BYTES) throw parseError(`path is longer than ${MAX_PATH_BYTES} bytes`);
  if (CONTROL_CHARS.test(raw)) throw outsideWorkspace("suspicious pattern (NUL or control character)");
  if (hasSuspiciousEscape(raw)) throw outsideWorkspace("suspicious pattern (percent-encoded characters)");
  if (DRIVE_PREFIX.test(raw)) throw outsideWorkspace("suspicious pattern (drive letter)");

  let segments = segmentsOf(raw);
  checkSegments(segments, platform);
  const compat = raw.normalize("NFKC");
  if (compat !== raw) {
    if (compat.startsWith("/") && !raw.startsWith("/")) throw outsideWorkspace("suspicious pattern (Unicode lookalike of '/')");
    checkSegments(segmentsOf(compat), platform);
  }

  if (raw.startsWith("/")) {
    const rootSegments = segmentsOf(root);
    const inside = rootSegments.length <= segments.length && rootSegments.every((s, i) => segments[i] === s);
    if (!inside) throw outsideWorkspace("absolute paths must lie inside the workspace");
    segments = segments.slice(rootSegments.length);
  }
  for (const segment of segments)
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) throw parseError(`a path segment is longer than ${MAX_NAME_BYTES} bytes`);
  return segments.join("/");
}

/** Absolute path of a workspace-relative path (lexical: symlinks are not resolved). */
export function absoluteOf(root: string, rel: string): string {
  if (rel === "") return root;
  return root.endsWith("/") ? root + rel : `${root}/${rel}`;
}

/** True when absolute `path` is `root` or lies below it. */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/** Parent of a workspace-relative path ("" for a top-level entry). */
export function parentOf(rel: string): string {
  const slash = rel.lastIndexOf("/");
  return slash === -1 ? "" : rel.slice(0, slash);
}

/** Last segment of a workspace-relative path. */
export function nameOf(rel: string): string {
  return rel.slice(rel.lastIndexOf("/") + 1);
}

/** `child` under workspace-relative directory `dir`. */
export function joinRel(dir: string, child: string): string {
  return dir === "" ? child : `${dir}/${child}`;
}
