/**
 * Request and response schemas of the workspace file routes (OpenAPI is generated from them).
 * Fields the reference answers with `parse_error` carry that body as their validation error, so an
 * invalid query or body gets `{errorKind: "parse_error", error, status: 400}` like every other
 * filesystem error.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { FsError } from "../../errors/daemon-error.ts";
import { CONTENT_HASH_PATTERN } from "../../workspace/content-hash.ts";
import { DEFAULT_BYTES_WINDOW, DEFAULT_GLOB_RESULTS, MAX_BYTES_WINDOW, MAX_GLOB_RESULTS, MAX_LINE_LIMIT } from "../../workspace/file-limits.ts";
import { TEXT_ENCODINGS } from "../../workspace/text-codec.ts";

/** A schema `error` that answers `{errorKind: "parse_error", error: message, status: 400}`. */
const invalid = (message: string) => () => new FsError(400, "parse_error", message).body();

const path = (description: string) => t.String({ description, error: invalid("path is required") });

/** Plain decimal digits, at most as many as Number.MAX_SAFE_INTEGER has. */
const DECIMAL_DIGITS = "^[0-9]{1,16}$";

/**
 * An integer query field from `minimum` to `maximum` (at most Number.MAX_SAFE_INTEGER, so the number
 * read is exactly the one sent). Only plain decimal digits are taken: not `t.Integer`, which reads the
 * string with `+value` and so also takes `1e3`, `0x10`, ` 5`, `1.0` and integers past 2^53. Both a
 * spelling outside the pattern and a value outside the range are 400 `parse_error` with one message.
 */
function queryInteger(name: string, minimum: number, maximum: number, description: string) {
  const message = `${name} must be an integer from ${minimum} to ${maximum}`;
  return t
    .Transform(t.String({ pattern: DECIMAL_DIGITS, description: `${description}; decimal digits, ${minimum} to ${maximum}`, error: invalid(message) }))
    .Decode((digits) => {
      const n = Number(digits);
      if (!(n >= minimum && n <= maximum)) throw new FsError(400, "parse_error", message);
      return n;
    })
    .Encode(String);
}

/** `1`, `true` or bare (`?includeIgnored`) turn it on. */
const IncludeIgnored = t.Optional(
  t.Union([t.Literal(""), t.Literal("1"), t.Literal("true"), t.Literal("0"), t.Literal("false")], {
    description: "also return ignored entries (`1` or `true`)",
    error: invalid("includeIgnored must be 1, true, 0 or false"),
  }),
);
export const isOn = (flag: string | undefined) => flag === "" || flag === "1" || flag === "true";

const ExpectedHash = t.String({
  pattern: CONTENT_HASH_PATTERN,
  description: "`sha256:` and 64 lowercase hex digits over the file's current raw bytes",
  error: invalid("expectedHash must be sha256: followed by 64 lowercase hex digits"),
});

// Literal unions, not `t.UnionEnum`: that one defaults a missing value to its first member.
const encoding = (options?: { error: unknown }) =>
  t.Union([t.Literal("utf-8"), t.Literal("utf-16le"), t.Literal("utf-16be"), t.Literal("windows-1252")], options as object);
const lineEnding = (options?: { error: unknown }) => t.Union([t.Literal("lf"), t.Literal("crlf")], options as object);

const WORKSPACE_PATH = "workspace-relative path (an absolute path must lie inside the workspace)";

export const FileQuery = t.Object({
  path: path(WORKSPACE_PATH),
  maxBytes: t.Optional(queryInteger("maxBytes", 1, MAX_BYTES_WINDOW, "largest number of bytes to read")),
  line: t.Optional(queryInteger("line", 1, Number.MAX_SAFE_INTEGER, "first line, 1-based")),
  limit: t.Optional(queryInteger("limit", 1, MAX_LINE_LIMIT, "largest number of lines to return")),
});

export const BytesQuery = t.Object({
  path: path(WORKSPACE_PATH),
  offset: t.Optional(queryInteger("offset", 0, Number.MAX_SAFE_INTEGER, "first byte to read (default 0)")),
  maxBytes: t.Optional(queryInteger("maxBytes", 1, MAX_BYTES_WINDOW, `largest number of bytes to read (default ${DEFAULT_BYTES_WINDOW})`)),
});

export const StatQuery = t.Object({ path: path(`${WORKSPACE_PATH}; \`.\` is the workspace root`) });

export const ListQuery = t.Object({ path: path(`${WORKSPACE_PATH}; \`.\` is the workspace root`), includeIgnored: IncludeIgnored });

export const GlobQuery = t.Object({
  pattern: t.String({ description: "Bun.Glob pattern, relative to cwd", error: invalid("pattern is required") }),
  cwd: t.Optional(t.String({ description: "directory the pattern is relative to (default: the workspace root)" })),
  maxResults: t.Optional(queryInteger("maxResults", 1, MAX_GLOB_RESULTS, `largest number of matches to return (default ${DEFAULT_GLOB_RESULTS})`)),
  includeIgnored: IncludeIgnored,
});

export const WriteBody = t.Object({
  path: path(WORKSPACE_PATH),
  content: t.String({ error: invalid("content must be a string") }),
  mode: t.Union([t.Literal("create"), t.Literal("replace")], { error: invalid("mode must be create or replace") }),
  expectedHash: t.Optional(ExpectedHash),
  encoding: t.Optional(encoding({ error: invalid(`encoding must be one of ${TEXT_ENCODINGS.join(", ")}`) })),
  bom: t.Optional(t.Boolean({ error: invalid("bom must be true or false") })),
  lineEnding: t.Optional(lineEnding({ error: invalid("lineEnding must be lf or crlf") })),
});

export const EditBody = t.Object({
  path: path(WORKSPACE_PATH),
  oldText: t.String({ minLength: 1, error: invalid("oldText must be a non-empty string") }),
  newText: t.String({ error: invalid("newText must be a string") }),
  expectedHash: ExpectedHash,
});

const Encoding = encoding();
const LineEnding = lineEnding();
const MatchedIgnore = t.Union([t.Literal("file"), t.Literal("directory"), t.Null()], { description: "why the path is ignored, if it is" });

export const TextFileBody = t.Object({
  kind: t.Literal("file"),
  path: t.String(),
  content: t.String(),
  encoding: Encoding,
  bom: t.Boolean(),
  lineEnding: LineEnding,
  sizeBytes: Type.Integer(),
  returnedBytes: Type.Integer(),
  truncated: t.Boolean(),
  hash: t.Optional(t.String({ description: "over the whole file; absent when it exceeds the read cap" })),
  matchedIgnore: MatchedIgnore,
  originalLineCount: t.Union([Type.Integer(), t.Null()]),
  nextCursor: t.Null(),
  hasMore: t.Boolean(),
});

export const FileBytesBody = t.Object({
  kind: t.Literal("file_bytes"),
  path: t.String(),
  offset: Type.Integer(),
  sizeBytes: Type.Integer(),
  returnedBytes: Type.Integer(),
  truncated: t.Boolean(),
  contentBase64: t.String(),
  hash: t.Optional(t.String({ description: "present only when the window covers the whole file" })),
});

export const StatBody = t.Object({
  kind: t.Literal("stat"),
  path: t.String(),
  type: t.Union([t.Literal("file"), t.Literal("directory"), t.Literal("symlink"), t.Literal("other")]),
  sizeBytes: Type.Integer(),
  modifiedMs: t.Number(),
});

export const ListBody = t.Object({
  kind: t.Literal("list"),
  path: t.String(),
  entries: t.Array(
    t.Object({
      name: t.String(),
      kind: t.Union([t.Literal("file"), t.Literal("directory"), t.Literal("symlink"), t.Literal("other")]),
      ignored: t.Boolean(),
    }),
  ),
  truncated: t.Boolean(),
  matchedIgnore: MatchedIgnore,
});

export const GlobBody = t.Object({
  kind: t.Literal("glob"),
  pattern: t.String(),
  cwd: t.String(),
  matches: t.Array(t.String(), { description: "workspace-relative file paths, sorted" }),
  count: Type.Integer(),
  truncated: t.Boolean(),
  durationMs: Type.Integer(),
});

const written = {
  path: t.String(),
  sizeBytes: Type.Integer(),
  hash: t.String(),
  encoding: Encoding,
  bom: t.Boolean(),
  lineEnding: LineEnding,
  matchedIgnore: MatchedIgnore,
};

export const WriteResultBody = t.Object({
  kind: t.Literal("file_write"),
  mode: t.Union([t.Literal("create"), t.Literal("replace")]),
  created: t.Boolean(),
  ...written,
});

export const EditResultBody = t.Object({ kind: t.Literal("file_edit"), replacements: t.Literal(1), ...written });
