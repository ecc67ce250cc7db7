/**
 * Glob patterns for `/glob`: validation, and a walk plan that keeps the walk small. Matching itself
 * is `Bun.Glob`'s; the plan only says where matches can be: below the pattern's literal leading
 * directories, and (without `**`) no deeper than its segment count. Pure functions.
 */
import { MAX_PATH_BYTES } from "./file-limits.ts";
import { outsideWorkspace, parseError } from "./fs-errors.ts";

export interface GlobPlan {
  /** The pattern to match with, leading `./` removed (matched paths never start with one). */
  readonly pattern: string;
  /** Literal leading directories (workspace-relative below the glob's cwd), "" when none. */
  readonly prefix: string;
  /** Most path segments a match has below `prefix`; null when unbounded (`**`, braces). */
  readonly maxDepth: number | null;
}

/** A segment that means only itself in every glob syntax Bun supports. */
const LITERAL_SEGMENT = /^[A-Za-z0-9._ -]+$/;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * Refuses patterns that could only name paths outside the cwd. The walker never leaves the cwd
 * whatever the pattern says, so this is about a clear error, not about safety.
 */
export function validateGlobPattern(pattern: string): void {
  if (pattern === "") throw parseError("pattern is required");
  if (Buffer.byteLength(pattern) > MAX_PATH_BYTES) throw parseError(`pattern is longer than ${MAX_PATH_BYTES} bytes`);
  if (CONTROL_CHARS.test(pattern)) throw outsideWorkspace("suspicious pattern (NUL or control character)");
  if (pattern.startsWith("/")) throw outsideWorkspace("glob patterns are relative to cwd");
  if (pattern.split("/").includes("..")) throw outsideWorkspace("'..' segments are not allowed");
}

export function planGlob(given: string): GlobPlan {
  const pattern = given.replace(/^(\.\/)+/, "");
  // Braces may hold a '/', so segment positions are not knowable without expanding them.
  if (pattern.includes("{")) return { pattern, prefix: "", maxDepth: null };
  const segments = pattern.split("/").filter((s) => s !== "" && s !== ".");
  let literal = 0;
  while (literal < segments.length - 1 && LITERAL_SEGMENT.test(segments[literal]!)) literal++;
  return {
    pattern,
    prefix: segments.slice(0, literal).join("/"),
    maxDepth: pattern.includes("**") ? null : segments.length - literal,
  };
}
