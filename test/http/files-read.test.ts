/** `GET /file`, `/file/bytes` and `/stat`: shapes, encodings, windows, caps and headers. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { fileRoutes, sha256, writeTree } from "../helpers/file-routes.ts";

let d: TestDaemon;
let files: ReturnType<typeof fileRoutes>;

const BIG_LINE = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n"; // 109 bytes
const BIG = BIG_LINE.repeat(3000); // 327,000 bytes: over the 256 KiB read cap
const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
const utf16be = (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]);

beforeAll(async () => {
  d = await startDaemon();
  files = fileRoutes(d);
  writeTree(d.workspace, {
    "hello.txt": "hello world\n",
    "lines.txt": "one\ntwo\nthree\nfour\nfive\n",
    "crlf.txt": "a\r\nb\r\nc\r\n",
    "bom.txt": "\ufeffwith bom\n",
    "le.txt": utf16le("little ✓\r\nendian\r\n"),
    "be.txt": utf16be("big endian\n"),
    "latin.txt": Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    "binary.bin": Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
    "big.txt": BIG,
    "empty.txt": "",
    "ignored.log": "log\n",
    "build/out.txt": "built\n",
    ".gitignore": "*.log\nbuild/\n",
    "dir/inner.txt": "inner\n",
  });
  symlinkSync("hello.txt", join(d.workspace, "alias.txt"));
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
});

describe("GET /file", () => {
  test("reads a whole text file with the full shape", async () => {
    const r = await files.get("/file", { path: "hello.txt" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: "file",
      path: "hello.txt",
      content: "hello world\n",
      encoding: "utf-8",
      bom: false,
      lineEnding: "lf",
      sizeBytes: 12,
      returnedBytes: 12,
      truncated: false,
      hash: sha256("hello world\n"),
      matchedIgnore: null,
      originalLineCount: 2,
      nextCursor: null,
      hasMore: false,
    });
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test.each<[string, string, boolean, string, string]>([
    ["crlf.txt", "utf-8", false, "crlf", "a\r\nb\r\nc\r\n"],
    ["bom.txt", "utf-8", true, "lf", "with bom\n"],
    ["le.txt", "utf-16le", true, "crlf", "little ✓\r\nendian\r\n"],
    ["be.txt", "utf-16be", true, "lf", "big endian\n"],
    ["latin.txt", "windows-1252", false, "lf", "café\n"],
  ])("%s decodes as %s (bom %p, %s)", async (path, encoding, bom, lineEnding, content) => {
    const r = await files.get("/file", { path });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ encoding, bom, lineEnding, content });
  });

  test("the hash is over the raw bytes, BOM included", async () => {
    const r = await files.get("/file", { path: "le.txt" });
    expect(r.body.hash).toBe(sha256(utf16le("little ✓\r\nendian\r\n")));
    expect(r.body.sizeBytes).toBe(utf16le("little ✓\r\nendian\r\n").length);
  });

  test("a line window returns those lines and keeps the whole-file hash", async () => {
    const r = await files.get("/file", { path: "lines.txt", line: 2, limit: 2 });
    expect(r.body).toMatchObject({
      content: "two\nthree\n",
      returnedBytes: 10,
      truncated: true,
      hasMore: true,
      hash: sha256("one\ntwo\nthree\nfour\nfive\n"),
      originalLineCount: 6,
      sizeBytes: 24,
    });
  });

  test("a window reaching the end has no more", async () => {
    const r = await files.get("/file", { path: "lines.txt", line: 4 });
    expect(r.body).toMatchObject({ content: "four\nfive\n", truncated: true, hasMore: false });
    const past = await files.get("/file", { path: "lines.txt", line: 50 });
    expect(past.body).toMatchObject({ content: "", returnedBytes: 0, hasMore: false });
  });

  test("maxBytes cuts at a character boundary", async () => {
    writeTree(d.workspace, { "ticks.txt": "a✓✓" });
    const r = await files.get("/file", { path: "ticks.txt", maxBytes: 5 });
    expect(r.body).toMatchObject({ content: "a✓", returnedBytes: 4, truncated: true, hasMore: true, sizeBytes: 7, hash: sha256("a✓✓") });
  });

  test("a file over the 256 KiB read cap needs a window", async () => {
    const r = await files.get("/file", { path: "big.txt" });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      errorKind: "file_too_large",
      error: `file of ${BIG.length} bytes exceeds read cap of 262144 bytes`,
      hint: expect.any(String),
      status: 413,
    });
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("a windowed read of a big file has no hash and no line count", async () => {
    const r = await files.get("/file", { path: "big.txt", line: 2001, limit: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ content: BIG_LINE + BIG_LINE, originalLineCount: null, truncated: true, hasMore: true, sizeBytes: BIG.length });
    expect("hash" in r.body).toBe(false);
    const head = await files.get("/file", { path: "big.txt", maxBytes: 10 });
    expect(head.body).toMatchObject({ content: "0123456789", returnedBytes: 10, hasMore: true });
    expect("hash" in head.body).toBe(false);
  });

  test("a line beyond the 8 MiB line scan of a huge file is 413", async () => {
    writeTree(d.workspace, { "huge.txt": "x".repeat(9 * 1024 * 1024) });
    const r = await files.get("/file", { path: "huge.txt", line: 2 });
    expect(r.status).toBe(413);
    expect(r.body.errorKind).toBe("file_too_large");
  });

  test("binary content is 422 binary_file", async () => {
    const r = await files.get("/file", { path: "binary.bin" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ errorKind: "binary_file", status: 422 });
  });

  test("a directory is 400 parse_error", async () => {
    const r = await files.get("/file", { path: "dir" });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorKind: "parse_error", status: 400 });
  });

  test("a missing file is 404 path_not_found naming only the relative path", async () => {
    const r = await files.get("/file", { path: "dir/missing.txt" });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errorKind: "path_not_found", error: "path not found: dir/missing.txt", status: 404 });
  });

  // Root reads any file whatever its mode, so this only runs as an ordinary user.
  test.skipIf(process.getuid?.() === 0)("an unreadable file is 403 permission_denied", async () => {
    writeTree(d.workspace, { "locked.txt": "x" });
    chmodSync(join(d.workspace, "locked.txt"), 0o000);
    const r = await files.get("/file", { path: "locked.txt" });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ errorKind: "permission_denied", error: "permission denied: locked.txt", status: 403 });
  });

  test("matchedIgnore says whether the file or a directory matched", async () => {
    expect((await files.get("/file", { path: "ignored.log" })).body.matchedIgnore).toBe("file");
    expect((await files.get("/file", { path: "build/out.txt" })).body.matchedIgnore).toBe("directory");
  });

  test("an absolute path inside the workspace and a symlink inside it both read, reported relative", async () => {
    const abs = await files.get("/file", { path: join(d.workspace, "hello.txt") });
    expect(abs.body.path).toBe("hello.txt");
    expect(abs.text).not.toContain(d.workspace);
    const alias = await files.get("/file", { path: "alias.txt" });
    expect(alias.body).toMatchObject({ path: "alias.txt", content: "hello world\n" });
  });

  test.each<[string, Record<string, string | number>, string]>([
    ["missing path", {}, "path is required"],
    ["maxBytes 0", { path: "hello.txt", maxBytes: 0 }, "maxBytes must be an integer from 1 to 262144"],
    ["maxBytes over the cap", { path: "hello.txt", maxBytes: 262145 }, "maxBytes must be an integer from 1 to 262144"],
    ["maxBytes not a number", { path: "hello.txt", maxBytes: "lots" }, "maxBytes must be an integer from 1 to 262144"],
    ["line 0", { path: "hello.txt", line: 0 }, "line must be an integer from 1 to 9007199254740991"],
    ["limit over 2000", { path: "hello.txt", limit: 2001 }, "limit must be an integer from 1 to 2000"],
    ["fractional limit", { path: "hello.txt", limit: 1.5 }, "limit must be an integer from 1 to 2000"],
  ])("%s is 400 parse_error", async (_what, query, error) => {
    const r = await files.get("/file", query);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errorKind: "parse_error", error, status: 400 });
    expect(r.headers.get("cache-control")).toBe("no-store");
  });
});

describe("GET /file/bytes", () => {
  test("defaults to the whole (small) file with its hash", async () => {
    const r = await files.get("/file/bytes", { path: "binary.bin" });
    expect(r.body).toEqual({
      kind: "file_bytes",
      path: "binary.bin",
      offset: 0,
      sizeBytes: 7,
      returnedBytes: 7,
      truncated: false,
      contentBase64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]).toString("base64"),
      hash: sha256(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02])),
    });
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("a partial window has no hash", async () => {
    const r = await files.get("/file/bytes", { path: "binary.bin", offset: 4, maxBytes: 2 });
    expect(r.body).toMatchObject({ offset: 4, returnedBytes: 2, truncated: true, contentBase64: Buffer.from([0, 1]).toString("base64") });
    expect("hash" in r.body).toBe(false);
  });

  test("the default window is 64 KiB", async () => {
    const r = await files.get("/file/bytes", { path: "big.txt" });
    expect(r.body).toMatchObject({ returnedBytes: 65536, truncated: true, sizeBytes: BIG.length });
  });

  test("an offset past the end returns nothing", async () => {
    const r = await files.get("/file/bytes", { path: "hello.txt", offset: 100 });
    expect(r.body).toMatchObject({ returnedBytes: 0, truncated: false, contentBase64: "" });
  });

  test.each<[Record<string, string | number>, string]>([
    [{ path: "hello.txt", maxBytes: 262145 }, "maxBytes must be an integer from 1 to 262144"],
    [{ path: "hello.txt", maxBytes: 0 }, "maxBytes must be an integer from 1 to 262144"],
    [{ path: "hello.txt", offset: -1 }, "offset must be an integer from 0 to 9007199254740991"],
  ])("%j is 400 parse_error", async (query, error) => {
    const r = await files.get("/file/bytes", query);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errorKind: "parse_error", error, status: 400 });
  });

  // Only plain decimal digits, and nothing past 2^53 - 1 (which no double holds exactly).
  const OFFSET = "offset must be an integer from 0 to 9007199254740991";
  const MAX_BYTES = "maxBytes must be an integer from 1 to 262144";
  test.each<[Record<string, string>, string]>([
    [{ offset: "99999999999999999999" }, OFFSET],
    [{ offset: "9007199254740992" }, OFFSET],
    [{ offset: "1e3" }, OFFSET],
    [{ offset: "0x10" }, OFFSET],
    [{ offset: "+5" }, OFFSET],
    [{ offset: " 5" }, OFFSET],
    [{ offset: "1.0" }, OFFSET],
    [{ offset: "" }, OFFSET],
    [{ maxBytes: "1e3" }, MAX_BYTES],
    [{ maxBytes: "0x10" }, MAX_BYTES],
    [{ maxBytes: "0b1" }, MAX_BYTES],
    [{ maxBytes: "16 " }, MAX_BYTES],
    [{ maxBytes: "Infinity" }, MAX_BYTES],
  ])("a loose integer spelling %j is 400 parse_error", async (query, error) => {
    const r = await files.get("/file/bytes", { path: "hello.txt", ...query });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errorKind: "parse_error", error, status: 400 });
  });

  test("the largest safe offset and leading zeros are plain decimal integers", async () => {
    const far = await files.get("/file/bytes", { path: "hello.txt", offset: "9007199254740991" });
    expect(far.body).toMatchObject({ offset: 9007199254740991, returnedBytes: 0 });
    const padded = await files.get("/file/bytes", { path: "binary.bin", offset: "004", maxBytes: "002" });
    expect(padded.body).toMatchObject({ offset: 4, returnedBytes: 2 });
  });

  test.each<[string, Record<string, string>, string]>([
    ["/file", { line: "1e1" }, "line must be an integer from 1 to 9007199254740991"],
    ["/file", { line: "99999999999999999999" }, "line must be an integer from 1 to 9007199254740991"],
    ["/file", { limit: "0x10" }, "limit must be an integer from 1 to 2000"],
    ["/file", { maxBytes: "1e3" }, "maxBytes must be an integer from 1 to 262144"],
    ["/glob", { pattern: "*", maxResults: "1e2" }, "maxResults must be an integer from 1 to 50000"],
  ])("every integer query field takes decimal digits only: %s %j", async (route, query, error) => {
    const r = await files.get(route, { path: "hello.txt", ...query });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errorKind: "parse_error", error, status: 400 });
  });
});

describe("GET /stat", () => {
  test("a file, the root, a directory and a symlink (not followed)", async () => {
    utimesSync(join(d.workspace, "hello.txt"), 1_700_000_000, 1_700_000_000);
    expect((await files.get("/stat", { path: "hello.txt" })).body).toEqual({
      kind: "stat",
      path: "hello.txt",
      type: "file",
      sizeBytes: 12,
      modifiedMs: 1_700_000_000_000,
    });
    expect((await files.get("/stat", { path: "." })).body).toMatchObject({ path: ".", type: "directory" });
    expect((await files.get("/stat", { path: "dir" })).body).toMatchObject({ path: "dir", type: "directory" });
    expect((await files.get("/stat", { path: "alias.txt" })).body).toMatchObject({ type: "symlink", sizeBytes: "hello.txt".length });
  });

  test("links that stay inside are symlinks: to a link, dangling, or through a linked directory", async () => {
    symlinkSync("alias.txt", join(d.workspace, "alias-of-alias.txt"));
    symlinkSync("no-such-file", join(d.workspace, "dangling-inside"));
    symlinkSync("dangling-inside", join(d.workspace, "to-dangling-inside"));
    symlinkSync("dir", join(d.workspace, "dir-alias"));
    symlinkSync("../alias.txt", join(d.workspace, "dir", "up-alias.txt"));
    for (const path of ["alias-of-alias.txt", "dangling-inside", "to-dangling-inside", "dir-alias", "dir-alias/up-alias.txt"]) {
      const r = await files.get("/stat", { path });
      expect({ path, status: r.status, type: r.body.type }).toEqual({ path, status: 200, type: "symlink" });
    }
    expect((await files.get("/stat", { path: "dir-alias/inner.txt" })).body).toMatchObject({ path: "dir-alias/inner.txt", type: "file" });
  });

  test("a FIFO is other, and /file refuses it without blocking", async () => {
    mkdirSync(join(d.workspace, "fifo-dir"));
    const made = Bun.spawnSync(["mkfifo", join(d.workspace, "fifo-dir", "pipe")]);
    expect(made.exitCode).toBe(0);
    expect((await files.get("/stat", { path: "fifo-dir/pipe" })).body.type).toBe("other");
    const r = await files.get("/file", { path: "fifo-dir/pipe" });
    expect(r.status).toBe(400);
    expect(r.body.errorKind).toBe("parse_error");
  });

  test("a missing path is 404 without the absolute path", async () => {
    const r = await files.get("/stat", { path: "nope/nothing" });
    expect(r.status).toBe(404);
    expect(r.body.errorKind).toBe("path_not_found");
    expect(r.text).not.toContain(d.workspace);
  });
});

describe("GET /openapi.json", () => {
  test("documents the file routes' query parameters and request bodies", async () => {
    const doc = (await (await d.fetch("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: { content: Record<string, unknown> } }>>;
    };
    expect(doc.paths["/file"]!.get!.parameters!.map((p) => p.name)).toEqual(["path", "maxBytes", "line", "limit"]);
    expect(doc.paths["/glob"]!.get!.parameters!.map((p) => p.name)).toEqual(["pattern", "cwd", "maxResults", "includeIgnored"]);
    for (const route of ["/file/write", "/file/edit"]) expect(Object.keys(doc.paths[route]!.post!.requestBody!.content)).toEqual(["application/json"]);
  });
});
