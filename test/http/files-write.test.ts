/**
 * `POST /file/write` and `POST /file/edit`: create and replace, hash semantics, preservation of
 * encoding/BOM/line endings, caps, atomicity under a six-way race, the strict gate and folder trust.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { fileRoutes, sha256, writeTree } from "../helpers/file-routes.ts";

let d: TestDaemon;
let files: ReturnType<typeof fileRoutes>;

beforeAll(async () => {
  d = await startDaemon(["--token", "t", "--trust-workspace"]);
  files = fileRoutes(d, "t");
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
});

const onDisk = (rel: string) => readFileSync(join(d.workspace, rel));
const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);

/** No temp files are left behind in `dir` (workspace-relative). */
const expectNoTempFiles = (dir = ".") => expect(readdirSync(join(d.workspace, dir)).filter((n) => n.startsWith(".svc-write-"))).toEqual([]);

describe("POST /file/write mode create", () => {
  test("creates the file with the mode the umask gives (as an editor would) and answers 201 with its hash", async () => {
    const r = await files.post("/file/write", { path: "created.txt", content: "a\nb\n", mode: "create" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      kind: "file_write",
      path: "created.txt",
      mode: "create",
      created: true,
      sizeBytes: 4,
      hash: sha256("a\nb\n"),
      encoding: "utf-8",
      bom: false,
      lineEnding: "lf",
      matchedIgnore: null,
    });
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(onDisk("created.txt").toString()).toBe("a\nb\n");
    // The daemon (in process, or the binary started by this process) has this process's umask.
    expect(statSync(join(d.workspace, "created.txt")).mode & 0o777).toBe(0o666 & ~process.umask());
    expectNoTempFiles();
  });

  test("creates missing parent directories", async () => {
    const r = await files.post("/file/write", { path: "new/deeper/file.ts", content: "x", mode: "create" });
    expect(r.status).toBe(201);
    expect(onDisk("new/deeper/file.ts").toString()).toBe("x");
  });

  test("an existing file is 409 file_already_exists and stays as it was", async () => {
    writeTree(d.workspace, { "exists.txt": "original" });
    const r = await files.post("/file/write", { path: "exists.txt", content: "new", mode: "create" });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ errorKind: "file_already_exists", status: 409 });
    expect(onDisk("exists.txt").toString()).toBe("original");
    expectNoTempFiles();
  });

  test("encoding, BOM and line endings can be chosen", async () => {
    const r = await files.post("/file/write", { path: "chosen.txt", content: "x\ny\n", mode: "create", encoding: "utf-16le", lineEnding: "crlf" });
    expect(r.body).toMatchObject({ encoding: "utf-16le", bom: true, lineEnding: "crlf" });
    expect(onDisk("chosen.txt")).toEqual(utf16le("x\r\ny\r\n"));
    const read = await files.get("/file", { path: "chosen.txt" });
    expect(read.body).toMatchObject({ content: "x\r\ny\r\n", encoding: "utf-16le", bom: true, lineEnding: "crlf", hash: r.body.hash });
  });

  test("writes to ignored paths are allowed and say so", async () => {
    writeTree(d.workspace, { ".gitignore": "*.log\n" });
    const r = await files.post("/file/write", { path: "debug.log", content: "x", mode: "create" });
    expect(r.status).toBe(201);
    expect(r.body.matchedIgnore).toBe("file");
  });
});

describe("POST /file/write mode replace", () => {
  test("needs the current hash; answers 200", async () => {
    writeTree(d.workspace, { "r.txt": "v1\n" });
    const r = await files.post("/file/write", { path: "r.txt", content: "v2\n", mode: "replace", expectedHash: sha256("v1\n") });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: "file_write", mode: "replace", created: false, hash: sha256("v2\n"), sizeBytes: 3 });
    expect(onDisk("r.txt").toString()).toBe("v2\n");
    expectNoTempFiles();
  });

  test("a stale hash is 409 hash_mismatch and the file is untouched", async () => {
    writeTree(d.workspace, { "stale.txt": "current" });
    const r = await files.post("/file/write", { path: "stale.txt", content: "mine", mode: "replace", expectedHash: sha256("old") });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      errorKind: "hash_mismatch",
      error: `expected ${sha256("old")}, found ${sha256("current")}`,
      hint: "re-read the file and retry with the latest hash",
      status: 409,
    });
    expect(onDisk("stale.txt").toString()).toBe("current");
    expectNoTempFiles();
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["no expectedHash", { mode: "replace" }, "expectedHash is required for mode replace"],
    ["upper-case hex", { mode: "replace", expectedHash: `sha256:${"A".repeat(64)}` }, "expectedHash must be sha256: followed by 64 lowercase hex digits"],
    ["another algorithm", { mode: "replace", expectedHash: `md5:${"a".repeat(32)}` }, "expectedHash must be sha256: followed by 64 lowercase hex digits"],
    ["a short digest", { mode: "replace", expectedHash: "sha256:abc" }, "expectedHash must be sha256: followed by 64 lowercase hex digits"],
    ["no mode", {}, "mode must be create or replace"],
    ["mode overwrite", { mode: "overwrite" }, "mode must be create or replace"],
    ["an unknown encoding", { mode: "create", encoding: "ebcdic" }, "encoding must be one of utf-8, utf-16le, utf-16be, windows-1252"],
    ["an unknown line ending", { mode: "create", lineEnding: "cr" }, "lineEnding must be lf or crlf"],
  ])("%s is 400 parse_error", async (_what, fields, error) => {
    writeTree(d.workspace, { "p.txt": "x" });
    const r = await files.post("/file/write", { path: "p.txt", content: "y", ...fields });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorKind: "parse_error", error, status: 400 });
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("malformed JSON is 400 with the file-route headers", async () => {
    const r = await files.post("/file/write", "{not json");
    expect(r.status).toBe(400);
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  test.each<[string, Uint8Array, string, string, boolean, string]>([
    ["UTF-16LE with BOM and CRLF", utf16le("one\r\ntwo\r\n"), "utf-16le", "crlf", true, "café – eins\r\nzwei\r\n"],
    ["UTF-8 with BOM and CRLF", Buffer.from("\ufeffone\r\ntwo\r\n"), "utf-8", "crlf", true, "café – eins\r\nzwei\r\n"],
    ["windows-1252 with LF", Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), "windows-1252", "lf", false, "café – eins\nzwei\n"],
  ])("keeps %s", async (_what, original, encoding, lineEnding, bom, expectedText) => {
    writeTree(d.workspace, { "keep.txt": original });
    const r = await files.post("/file/write", { path: "keep.txt", content: "café – eins\r\nzwei\n", mode: "replace", expectedHash: sha256(original) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ encoding, bom, lineEnding });
    const read = await files.get("/file", { path: "keep.txt" });
    expect(read.body).toMatchObject({ content: expectedText, encoding, bom, lineEnding, hash: r.body.hash });
    expect(sha256(onDisk("keep.txt"))).toBe(r.body.hash);
  });

  test("explicit fields override what the file had", async () => {
    writeTree(d.workspace, { "over.txt": "\ufeffa\r\nb\r\n" });
    const r = await files.post("/file/write", {
      path: "over.txt",
      content: "a\r\nb\r\n",
      mode: "replace",
      expectedHash: sha256("\ufeffa\r\nb\r\n"),
      bom: false,
      lineEnding: "lf",
    });
    expect(r.body).toMatchObject({ encoding: "utf-8", bom: false, lineEnding: "lf" });
    expect(onDisk("over.txt").toString()).toBe("a\nb\n");
  });

  test("the file's mode is kept", async () => {
    writeTree(d.workspace, { "mode.sh": "#!/bin/sh\n" });
    const { chmodSync } = await import("node:fs");
    chmodSync(join(d.workspace, "mode.sh"), 0o750);
    await files.post("/file/write", { path: "mode.sh", content: "#!/bin/sh\nexit 0\n", mode: "replace", expectedHash: sha256("#!/bin/sh\n") });
    expect(statSync(join(d.workspace, "mode.sh")).mode & 0o777).toBe(0o750);
  });

  test("content over 5 MiB is 413 file_too_large", async () => {
    const r = await files.post("/file/write", { path: "huge.txt", content: "é".repeat(3 * 1024 * 1024), mode: "create" });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ errorKind: "file_too_large", status: 413 });
    expect(readdirSync(d.workspace)).not.toContain("huge.txt");
  });

  test("text windows-1252 cannot hold is 400, the file untouched", async () => {
    writeTree(d.workspace, { "cp.txt": Uint8Array.from([0xe9]) });
    const r = await files.post("/file/write", { path: "cp.txt", content: "snow ☃", mode: "replace", expectedHash: sha256(Uint8Array.from([0xe9])) });
    expect(r.status).toBe(400);
    expect(r.body.errorKind).toBe("parse_error");
    expect(onDisk("cp.txt")).toEqual(Buffer.from([0xe9]));
  });

  test("a directory cannot be replaced", async () => {
    mkdirSync(join(d.workspace, "a-dir"), { recursive: true });
    const r = await files.post("/file/write", { path: "a-dir", content: "x", mode: "replace", expectedHash: sha256("") });
    expect(r.status).toBe(400);
    expect(r.body.errorKind).toBe("parse_error");
  });

  test("six concurrent replaces with the same hash: exactly one wins, the rest get hash_mismatch", async () => {
    writeTree(d.workspace, { "race.txt": "base" });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => files.post("/file/write", { path: "race.txt", content: `writer ${i}`, mode: "replace", expectedHash: sha256("base") })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners.length).toBe(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.errorKind === "hash_mismatch")).toBe(true);
    expect(results.filter((r) => r.status === 409).length).toBe(5);
    expect(sha256(onDisk("race.txt"))).toBe(winners[0]!.body.hash);
    expectNoTempFiles();
  });

  test("six concurrent creates of one path: exactly one wins", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => files.post("/file/write", { path: "once.txt", content: `${i}`, mode: "create" })));
    expect(results.filter((r) => r.status === 201).length).toBe(1);
    expect(results.filter((r) => r.status === 409 && r.body.errorKind === "file_already_exists").length).toBe(5);
  });
});

describe("POST /file/edit", () => {
  test("replaces the one occurrence and answers the new hash", async () => {
    writeTree(d.workspace, { "e.ts": "const a = 1;\nconst b = 2;\n" });
    const r = await files.post("/file/edit", { path: "e.ts", oldText: "b = 2", newText: "b = 3", expectedHash: sha256("const a = 1;\nconst b = 2;\n"), replaceAll: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: "file_edit",
      path: "e.ts",
      replacements: 1,
      sizeBytes: 26,
      hash: sha256("const a = 1;\nconst b = 3;\n"),
      encoding: "utf-8",
      bom: false,
      lineEnding: "lf",
      matchedIgnore: null,
    });
    expect(onDisk("e.ts").toString()).toBe("const a = 1;\nconst b = 3;\n");
  });

  test("keeps a UTF-16 BOM file's encoding and CRLF, matching LF search text", async () => {
    const original = utf16le("alpha\r\nbeta\r\ngamma\r\n");
    writeTree(d.workspace, { "e16.txt": original });
    const r = await files.post("/file/edit", { path: "e16.txt", oldText: "alpha\nbeta", newText: "ALPHA\nBETA", expectedHash: sha256(original) });
    expect(r.body).toMatchObject({ encoding: "utf-16le", bom: true, lineEnding: "crlf" });
    expect(onDisk("e16.txt")).toEqual(utf16le("ALPHA\r\nBETA\r\ngamma\r\n"));
  });

  test.each<[string, string, number, string]>([
    ["text that is not there", "nope", 422, "text_not_found"],
    ["text that occurs twice", "x", 422, "ambiguous_text_match"],
  ])("%s is %d %s", async (_what, oldText, status, errorKind) => {
    writeTree(d.workspace, { "amb.txt": "x and x" });
    const r = await files.post("/file/edit", { path: "amb.txt", oldText, newText: "y", expectedHash: sha256("x and x") });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ errorKind, status, hint: expect.any(String) });
    expect(onDisk("amb.txt").toString()).toBe("x and x");
  });

  test("a stale hash is 409; missing hash or empty oldText is 400", async () => {
    writeTree(d.workspace, { "eh.txt": "abc" });
    expect((await files.post("/file/edit", { path: "eh.txt", oldText: "b", newText: "B", expectedHash: sha256("old") })).body.errorKind).toBe("hash_mismatch");
    expect((await files.post("/file/edit", { path: "eh.txt", oldText: "b", newText: "B" })).body).toMatchObject({ errorKind: "parse_error", status: 400 });
    expect((await files.post("/file/edit", { path: "eh.txt", oldText: "", newText: "B", expectedHash: sha256("abc") })).body).toEqual({
      errorKind: "parse_error",
      error: "oldText must be a non-empty string",
      status: 400,
    });
  });

  test("a binary file is 422 binary_file", async () => {
    writeTree(d.workspace, { "bin.dat": Uint8Array.from([1, 0, 2]) });
    const r = await files.post("/file/edit", { path: "bin.dat", oldText: "a", newText: "b", expectedHash: sha256(Uint8Array.from([1, 0, 2])) });
    expect(r.status).toBe(422);
    expect(r.body.errorKind).toBe("binary_file");
  });

  test("six concurrent edits with the same hash: exactly one wins", async () => {
    writeTree(d.workspace, { "erace.txt": "counter = 0" });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => files.post("/file/edit", { path: "erace.txt", oldText: "0", newText: `${i + 1}`, expectedHash: sha256("counter = 0") })),
    );
    expect(results.filter((r) => r.status === 200).length).toBe(1);
    expect(results.filter((r) => r.body.errorKind === "hash_mismatch").length).toBe(5);
  });
});

describe("the strict gate", () => {
  test("a tokenless daemon answers 401 token_required to writes and edits, and writes nothing", async () => {
    await using open = await startDaemon();
    const anon = fileRoutes(open);
    for (const [route, body] of [
      ["/file/write", { path: "x.txt", content: "x", mode: "create" }],
      ["/file/edit", { path: "x.txt", oldText: "a", newText: "b", expectedHash: sha256("") }],
    ] as const) {
      const r = await anon.post(route, body);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("token_required");
    }
    expect(readdirSync(open.workspace)).toEqual([]);
    expect((await anon.get("/file", { path: "x.txt" })).status).toBe(404); // reads stay open
  });

  test("with a token, a request without it is 401 and one with it works", async () => {
    const anon = fileRoutes(d);
    expect((await anon.post("/file/write", { path: "gate.txt", content: "x", mode: "create" })).status).toBe(401);
    expect((await files.post("/file/write", { path: "gate.txt", content: "x", mode: "create" })).status).toBe(201);
  });
});

describe("folder trust", () => {
  test("a workspace nobody trusted reads but refuses writes and edits with 403 untrusted_workspace", async () => {
    await using untrusted = await startDaemon(["--token", "t"]);
    writeTree(untrusted.workspace, { "a.txt": "a" });
    const client = fileRoutes(untrusted, "t");
    expect((await client.get("/file", { path: "a.txt" })).status).toBe(200);
    const write = await client.post("/file/write", { path: "b.txt", content: "b", mode: "create" });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ errorKind: "untrusted_workspace", status: 403 });
    const edit = await client.post("/file/edit", { path: "a.txt", oldText: "a", newText: "b", expectedHash: sha256("a") });
    expect(edit.body.errorKind).toBe("untrusted_workspace");
    expect(readFileSync(join(untrusted.workspace, "a.txt"), "utf8")).toBe("a");
    expect(readdirSync(untrusted.workspace)).toEqual(["a.txt"]);
    const caps = (await (await untrusted.fetch("/capabilities", { headers: { Authorization: "Bearer t" } })).json()) as { workspaces: { trusted: boolean }[] };
    expect(caps.workspaces[0]!.trusted).toBe(false);
  });

  test("a trusted workspace says so in /capabilities", async () => {
    const caps = (await (await d.fetch("/capabilities", { headers: { Authorization: "Bearer t" } })).json()) as { workspaces: { trusted: boolean }[]; features: string[] };
    expect(caps.workspaces[0]!.trusted).toBe(true);
    expect(caps.features).toEqual(expect.arrayContaining(["workspace_file_read", "workspace_file_bytes", "workspace_file_write"]));
  });
});
