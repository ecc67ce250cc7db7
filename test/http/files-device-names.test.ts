/**
 * Names Windows reserves for devices (`aux.c`, `con/`, `nul`, `COM1.log`) are ordinary names on
 * Linux and macOS: the file routes write, edit, read, stat, list and glob them like any other.
 * (Their refusal on Windows is checked in test/unit/workspace/paths.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { fileRoutes, sha256 } from "../helpers/file-routes.ts";

let d: TestDaemon;
let files: ReturnType<typeof fileRoutes>;

beforeAll(async () => {
  d = await startDaemon(["--token", "t", "--trust-workspace"]);
  files = fileRoutes(d, "t");
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
});

const NAMES = ["aux.c", "con/main.c", "nul", "COM1.log", "lpt9/aux.h"];

describe.skipIf(process.platform === "win32")("Windows device names on this system", () => {
  test("aux.c, con/ and the like round-trip through write, edit, read, stat, list and glob", async () => {
    for (const path of NAMES) {
      const created = await files.post("/file/write", { path, content: `int ${path.length};\n`, mode: "create" });
      expect({ path, status: created.status }).toEqual({ path, status: 201 });
      expect(readFileSync(join(d.workspace, path), "utf8")).toBe(`int ${path.length};\n`);
    }
    const edited = await files.post("/file/edit", { path: "aux.c", oldText: "int", newText: "long", expectedHash: sha256("int 5;\n") });
    expect(edited.status).toBe(200);
    const read = await files.get("/file", { path: "aux.c" });
    expect(read.status).toBe(200);
    expect(read.body.content).toBe("long 5;\n");
    expect((await files.get("/stat", { path: "con" })).body).toMatchObject({ type: "directory" });
    const listed = await files.get("/list", { path: "con" });
    expect(listed.status).toBe(200);
    expect(listed.body.entries.map((e: { name: string }) => e.name)).toEqual(["main.c"]);
    const root = await files.get("/list", { path: "." });
    expect(root.body.entries.map((e: { name: string }) => e.name).sort()).toEqual(["COM1.log", "aux.c", "con", "lpt9", "nul"]);
    const globbed = await files.get("/glob", { pattern: "**/*" });
    expect(globbed.status).toBe(200);
    expect([...globbed.body.matches].sort()).toEqual([...NAMES].sort());
    const inCon = await files.get("/glob", { pattern: "*.c", cwd: "con" });
    expect(inCon.body).toMatchObject({ cwd: "con", matches: ["con/main.c"] });
  });
});
