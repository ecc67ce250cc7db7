/** Finding the user's programs on PATH: absolute entries only, nothing that resolves into the workspace. */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { absoluteSearchPath, withAbsoluteSearchPath } from "../../../src/config/search-path.ts";
import { findHostExecutable, hostSearchPath } from "../../../src/workspace/host-executable.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

function program(dir: string, name: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), "#!/bin/sh\n");
  chmodSync(join(dir, name), mode);
  return join(dir, name);
}

describe("absoluteSearchPath", () => {
  test.each<[string, string]>([
    ["/usr/bin:/bin", "/usr/bin:/bin"],
    ["node_modules/.bin:/usr/bin", "/usr/bin"],
    ["/usr/bin::/bin", "/usr/bin:/bin"],
    [":/usr/bin", "/usr/bin"],
    ["/usr/bin:", "/usr/bin"],
    ["./bin:.:bin", ""],
    ["", ""],
  ])("%j → %j", (path, kept) => {
    expect(absoluteSearchPath(path)).toBe(kept);
  });

  test("withAbsoluteSearchPath keeps the other variables and drops a PATH left empty", () => {
    expect(withAbsoluteSearchPath({ PATH: "bin:/usr/bin", HOME: "/h" })).toEqual({ PATH: "/usr/bin", HOME: "/h" });
    expect(withAbsoluteSearchPath({ PATH: "bin::.", HOME: "/h" })).toEqual({ HOME: "/h" });
    expect(withAbsoluteSearchPath({ HOME: "/h" })).toEqual({ HOME: "/h" });
  });
});

describe("findHostExecutable", () => {
  test("the first executable file in an absolute entry, outside the workspace", async () => {
    await using host = tempDir("svc-host-bin-");
    await using ws = tempDir("svc-host-ws-");
    const first = program(join(host.path, "a"), "rg");
    program(join(host.path, "b"), "rg");
    program(join(host.path, "c"), "git", 0o644); // not executable: skipped, like the shell skips it
    mkdirSync(join(host.path, "d", "git"), { recursive: true }); // a folder: skipped
    const path = [join(host.path, "c"), join(host.path, "d"), join(host.path, "a"), join(host.path, "b")].join(":");
    expect(findHostExecutable("rg", path, ws.path)).toEqual({ kind: "found", path: first });
    expect(findHostExecutable("git", path, ws.path)).toEqual({ kind: "missing", skippedRelative: false });
    expect(findHostExecutable("nope", `bin:${path}`, ws.path)).toEqual({ kind: "missing", skippedRelative: true });
    expect(findHostExecutable("./rg", path, ws.path).kind).toBe("missing");
  });

  test("relative and empty entries are never searched, even when they hold the program", async () => {
    await using ws = tempDir("svc-host-ws-");
    program(join(ws.path, "node_modules", ".bin"), "rg");
    program(ws.path, "rg");
    const previous = process.cwd();
    process.chdir(ws.path);
    try {
      expect(findHostExecutable("rg", "node_modules/.bin", ws.path)).toEqual({ kind: "missing", skippedRelative: true });
      expect(findHostExecutable("rg", ":.", ws.path)).toEqual({ kind: "missing", skippedRelative: true });
    } finally {
      process.chdir(previous);
    }
  });

  test("a program inside the workspace is refused: by an absolute entry there, or by a link pointing there", async () => {
    await using host = tempDir("svc-host-bin-");
    await using ws = tempDir("svc-host-ws-");
    const inside = program(join(ws.path, "tools"), "rg");
    program(join(host.path, "later"), "rg");
    expect(findHostExecutable("rg", `${join(ws.path, "tools")}:${join(host.path, "later")}`, ws.path)).toEqual({ kind: "inside_workspace", path: inside, real: inside });
    mkdirSync(join(host.path, "links"));
    symlinkSync(inside, join(host.path, "links", "rg"));
    expect(findHostExecutable("rg", `${join(host.path, "links")}:${join(host.path, "later")}`, ws.path)).toEqual({ kind: "inside_workspace", path: join(host.path, "links", "rg"), real: inside });
    // A PATH folder that is itself a link into the workspace.
    symlinkSync(join(ws.path, "tools"), join(host.path, "tools-link"));
    expect(findHostExecutable("rg", join(host.path, "tools-link"), ws.path).kind).toBe("inside_workspace");
  });

  test("hostSearchPath drops relative entries and those leading into the workspace", async () => {
    await using host = tempDir("svc-host-bin-");
    await using ws = tempDir("svc-host-ws-");
    mkdirSync(join(ws.path, "bin"));
    symlinkSync(join(ws.path, "bin"), join(host.path, "ws-bin"));
    expect(hostSearchPath(`bin:${join(ws.path, "bin")}:/usr/bin:${join(host.path, "ws-bin")}:/nonexistent:`, ws.path)).toBe("/usr/bin:/nonexistent");
  });
});
