/**
 * Containment on disk: symlink resolution (final, intermediate, dangling), creation targets, and the
 * open-time check that catches a directory swapped for a symlink after the path was resolved.
 */
import { describe, expect, test } from "bun:test";
import { constants, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FsError } from "../../../src/errors/daemon-error.ts";
import { checkSymlink, openContained, openDirContained, resolveExisting, resolveForCreate } from "../../../src/workspace/contained-fs.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

async function kindOf(work: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof work === "function" ? work() : work);
  } catch (err) {
    if (err instanceof FsError) return err.errorKind;
    throw err;
  }
  return "ok";
}

async function fixture() {
  const ws = tempDir("svc-ws-");
  const outside = tempDir("svc-out-");
  mkdirSync(join(ws.path, "real"));
  writeFileSync(join(ws.path, "real", "f.txt"), "inside");
  writeFileSync(join(outside.path, "f.txt"), "outside");
  return {
    ws: ws.path,
    outside: outside.path,
    async [Symbol.asyncDispose]() {
      await ws[Symbol.asyncDispose]();
      await outside[Symbol.asyncDispose]();
    },
  };
}

describe("resolveExisting", () => {
  test("follows symlinks that stay inside", async () => {
    await using fx = await fixture();
    symlinkSync("real", join(fx.ws, "alias"));
    expect(await resolveExisting(fx.ws, "alias/f.txt")).toBe(join(fx.ws, "real", "f.txt"));
  });

  test.each<[string, (fx: { ws: string; outside: string }) => void, string]>([
    ["a file symlink to outside", (fx) => symlinkSync(join(fx.outside, "f.txt"), join(fx.ws, "link.txt")), "link.txt"],
    ["an intermediate directory symlink to outside", (fx) => symlinkSync(fx.outside, join(fx.ws, "out")), "out/f.txt"],
    ["a relative symlink climbing out", (fx) => symlinkSync("../../..", join(fx.ws, "real", "up")), "real/up/etc/passwd"],
    ["a dangling symlink pointing outside", (fx) => symlinkSync(join(fx.outside, "missing"), join(fx.ws, "dangling")), "dangling"],
    ["a path below a dangling symlink to outside", (fx) => symlinkSync(join(fx.outside, "nodir"), join(fx.ws, "dl")), "dl/x/y"],
    [
      "a link to a dangling link pointing outside",
      (fx) => {
        symlinkSync(join(fx.outside, "missing"), join(fx.ws, "real", "dangling"));
        symlinkSync("real/dangling", join(fx.ws, "hop"));
      },
      "hop",
    ],
    [
      "a path below a link to a link to a missing directory outside",
      (fx) => {
        symlinkSync(join(fx.outside, "nodir"), join(fx.ws, "real", "dl"));
        symlinkSync(join(fx.ws, "real", "dl"), join(fx.ws, "hop"));
      },
      "hop/x/y",
    ],
  ])("refuses %s with symlink_escape", async (_what, arrange, rel) => {
    await using fx = await fixture();
    arrange(fx);
    expect(await kindOf(resolveExisting(fx.ws, rel))).toBe("symlink_escape");
  });

  test("a missing path, also one below a file or a dangling inside link, is path_not_found", async () => {
    await using fx = await fixture();
    symlinkSync(join(fx.ws, "nowhere"), join(fx.ws, "dangling-inside"));
    expect(await kindOf(resolveExisting(fx.ws, "nope.txt"))).toBe("path_not_found");
    expect(await kindOf(resolveExisting(fx.ws, "real/f.txt/x"))).toBe("path_not_found");
    expect(await kindOf(resolveExisting(fx.ws, "dangling-inside"))).toBe("path_not_found");
  });

  test("a symlink loop is refused", async () => {
    await using fx = await fixture();
    symlinkSync("loop-b", join(fx.ws, "loop-a"));
    symlinkSync("loop-a", join(fx.ws, "loop-b"));
    expect(await kindOf(resolveExisting(fx.ws, "loop-a"))).toBe("symlink_escape");
  });
});

describe("checkSymlink", () => {
  test("passes links that stay inside, dangling or not, and refuses chains that leave", async () => {
    await using fx = await fixture();
    symlinkSync("real/f.txt", join(fx.ws, "to-file"));
    symlinkSync("to-file", join(fx.ws, "to-link"));
    symlinkSync("nowhere", join(fx.ws, "dangling-inside"));
    symlinkSync("dangling-inside", join(fx.ws, "to-dangling-inside"));
    symlinkSync(join(fx.outside, "f.txt"), join(fx.ws, "out"));
    symlinkSync("out", join(fx.ws, "to-out"));
    for (const rel of ["to-file", "to-link", "dangling-inside", "to-dangling-inside"]) expect(await kindOf(checkSymlink(fx.ws, rel))).toBe("ok");
    for (const rel of ["out", "to-out"]) expect(await kindOf(checkSymlink(fx.ws, rel))).toBe("symlink_escape");
  });
});

describe("resolveForCreate", () => {
  test("creates missing parent directories inside the workspace", async () => {
    await using fx = await fixture();
    const { target } = await resolveForCreate(fx.ws, "new/deep/file.txt");
    expect(target).toBe(join(fx.ws, "new", "deep", "file.txt"));
    expect(existsSync(join(fx.ws, "new", "deep"))).toBe(true);
  });

  test("a dangling symlink pointing outside is symlink_escape and creates nothing there", async () => {
    await using fx = await fixture();
    symlinkSync(join(fx.outside, "planted.txt"), join(fx.ws, "trap.txt"));
    expect(await kindOf(resolveForCreate(fx.ws, "trap.txt"))).toBe("symlink_escape");
    expect(existsSync(join(fx.outside, "planted.txt"))).toBe(false);
  });

  test("parents are never created through a symlink to outside", async () => {
    await using fx = await fixture();
    symlinkSync(fx.outside, join(fx.ws, "out"));
    expect(await kindOf(resolveForCreate(fx.ws, "out/newdir/f.txt"))).toBe("symlink_escape");
    expect(existsSync(join(fx.outside, "newdir"))).toBe(false);
  });

  test("an existing entry is file_already_exists; a file as parent is parse_error", async () => {
    await using fx = await fixture();
    expect(await kindOf(resolveForCreate(fx.ws, "real/f.txt"))).toBe("file_already_exists");
    expect(await kindOf(resolveForCreate(fx.ws, "real/f.txt/child.txt"))).toBe("parse_error");
  });
});

describe("open-time containment", () => {
  test("a directory swapped for a symlink to outside after resolution is caught at open", async () => {
    await using fx = await fixture();
    const real = await resolveExisting(fx.ws, "real/f.txt");
    renameSync(join(fx.ws, "real"), join(fx.ws, "real-moved"));
    symlinkSync(fx.outside, join(fx.ws, "real"));
    // The kernel follows the new link; only the descriptor check can notice.
    expect(readFileSync(real, "utf8")).toBe("outside");
    expect(await kindOf(openContained(fx.ws, real, "real/f.txt", constants.O_RDONLY))).toBe("symlink_escape");
    expect(await kindOf(() => openDirContained(fx.ws, join(fx.ws, "real"), "real").close())).toBe("symlink_escape");
  });

  test("a parent directory swapped for a symlink is caught when opening a directory below it", async () => {
    await using fx = await fixture();
    mkdirSync(join(fx.ws, "real", "sub"));
    mkdirSync(join(fx.outside, "sub"));
    const real = await resolveExisting(fx.ws, "real/sub");
    renameSync(join(fx.ws, "real"), join(fx.ws, "real-moved"));
    symlinkSync(fx.outside, join(fx.ws, "real"));
    expect(await kindOf(() => openDirContained(fx.ws, real, "real/sub").close())).toBe("symlink_escape");
  });

  test("a file swapped for a symlink after resolution is refused (O_NOFOLLOW)", async () => {
    await using fx = await fixture();
    const real = await resolveExisting(fx.ws, "real/f.txt");
    renameSync(real, `${real}.moved`);
    symlinkSync(join(fx.outside, "f.txt"), real);
    expect(await kindOf(openContained(fx.ws, real, "real/f.txt", constants.O_RDONLY))).toBe("symlink_escape");
  });

  test("an untouched path opens and reads", async () => {
    await using fx = await fixture();
    const real = await resolveExisting(fx.ws, "real/f.txt");
    const handle = await openContained(fx.ws, real, "real/f.txt", constants.O_RDONLY);
    try {
      expect(await handle.readFile("utf8")).toBe("inside");
    } finally {
      await handle.close();
    }
  });
});
