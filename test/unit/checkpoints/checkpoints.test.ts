/**
 * The checkpoints against real files and a real git repository (no daemon): what a turn's shell
 * changes are found to be, what "before" each gets, and the parser of git's status records.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Checkpoints } from "../../../src/checkpoints/index.ts";
import { statusPaths } from "../../../src/checkpoints/git-tree.ts";
import { MAX_FILES_PER_TURN } from "../../../src/checkpoints/turn-log.ts";
import { Logger } from "../../../src/logging/logger.ts";
import { gitProcessRunner } from "../../../src/runtime/git-process.ts";
import { initRepo } from "../../helpers/git-repo.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const quiet = new Logger("error", "text", { write: () => {} });

function checkpoints(dir: string, maxBytes = 1024 * 1024): Checkpoints {
  return new Checkpoints({
    dir,
    maxBytes,
    gitHost: (root) => ({ root, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, runner: (path, env) => gitProcessRunner(path, env) }),
    logger: quiet,
  });
}

describe("checkpoints", () => {
  test("a shell change to a tracked file is found; a file dirty before the turn goes back to its state then, not HEAD's", async () => {
    await using ws = tempDir("p-cp-ws-");
    await using data = tempDir("p-cp-data-");
    initRepo(ws.path, { "clean.txt": "head clean\n", "dirty.txt": "head dirty\n", "bin.dat": "x" });
    writeFileSync(join(ws.path, "bin.dat"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "binary"], { cwd: ws.path, env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
    writeFileSync(join(ws.path, "dirty.txt"), "edited before the turn\n");
    const cp = checkpoints(data.path);
    await cp.turnStarted("s1", ws.path, "p1");
    // What a shell command does during the turn:
    writeFileSync(join(ws.path, "clean.txt"), "shell\n");
    writeFileSync(join(ws.path, "dirty.txt"), "shell too\n");
    writeFileSync(join(ws.path, "bin.dat"), "now text");
    writeFileSync(join(ws.path, "untracked.txt"), "not covered\n");
    await cp.turnFinished("s1", "p1");
    const [turn] = cp.snapshots("s1");
    const files = [...turn!.files].sort((a, b) => a.path.localeCompare(b.path));
    expect(files).toEqual([
      { path: "bin.dat", change: "modified", source: "shell", restorable: false, reason: "not_in_git" },
      { path: "clean.txt", change: "modified", source: "shell", restorable: true },
      { path: "dirty.txt", change: "modified", source: "shell", restorable: true },
    ]);
    const plan = cp.plan("s1", "p1")!;
    // A change seen only in the tree cannot be told from anybody else's (the user's editor): each is a conflict, restored when forced.
    expect((await cp.conflicts(ws.path, plan)).sort()).toEqual(["bin.dat", "clean.txt", "dirty.txt"]);
    const outcome = await cp.restore(ws.path, plan);
    expect(outcome.filesFailed).toEqual(["bin.dat"]);
    expect(readFileSync(join(ws.path, "clean.txt"), "utf8")).toBe("head clean\n");
    expect(readFileSync(join(ws.path, "dirty.txt"), "utf8")).toBe("edited before the turn\n");
    expect(readFileSync(join(ws.path, "untracked.txt"), "utf8")).toBe("not covered\n");
  });

  test("a tool write first asks; later writes of the same file in the turn keep the first content; a write back to it leaves no record", async () => {
    await using ws = tempDir("p-cp-ws-");
    await using data = tempDir("p-cp-data-");
    writeFileSync(join(ws.path, "a.txt"), "one");
    writeFileSync(join(ws.path, "b.txt"), "same");
    const cp = checkpoints(data.path);
    await cp.turnStarted("s1", ws.path, "p1");
    expect(await cp.beforeWrite("s1", join(ws.path, "a.txt"))).toBe(true);
    writeFileSync(join(ws.path, "a.txt"), "two");
    expect(await cp.beforeWrite("s1", "a.txt")).toBe(true);
    writeFileSync(join(ws.path, "a.txt"), "three");
    await cp.beforeWrite("s1", "b.txt");
    expect(await cp.beforeWrite("s1", "/etc/passwd")).toBe(false);
    await cp.turnFinished("s1", "p1");
    expect(cp.snapshots("s1")[0]!.files).toEqual([{ path: "a.txt", change: "modified", source: "tool", restorable: true }]);
    expect(cp.status()).toMatchObject({ count: 1, bytes: 3, turns: 1 });
    await cp.restore(ws.path, cp.plan("s1", "p1")!);
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("one");
  });

  test("a big dirty file no turn touches does not evict finished turns at the next turn's start", async () => {
    await using ws = tempDir("p-cp-ws-");
    await using data = tempDir("p-cp-data-");
    initRepo(ws.path, { "small.txt": "small\n", "big.txt": "big\n" });
    const cp = checkpoints(data.path, 1000);
    await cp.turnStarted("s1", ws.path, "p1");
    await cp.beforeWrite("s1", "small.txt");
    writeFileSync(join(ws.path, "small.txt"), "edited\n");
    await cp.turnFinished("s1", "p1");
    // The user leaves a big tracked file modified; the next turn only talks.
    writeFileSync(join(ws.path, "big.txt"), "x".repeat(998));
    await cp.turnStarted("s1", ws.path, "p2");
    await cp.turnFinished("s1", "p2");
    expect(cp.plan("s1", "p1")).not.toBeNull();
    expect(cp.status().evictions).toBe(0);
    await cp.restore(ws.path, cp.plan("s1", "p1")!);
    expect(readFileSync(join(ws.path, "small.txt"), "utf8")).toBe("small\n");
  });

  test("an executable a shell command deleted comes back executable", async () => {
    await using ws = tempDir("p-cp-ws-");
    await using data = tempDir("p-cp-data-");
    initRepo(ws.path, { "plain.txt": "plain\n" });
    writeFileSync(join(ws.path, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    const { execFileSync } = await import("node:child_process");
    const env = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    execFileSync("git", ["add", "run.sh"], { cwd: ws.path, env });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "script"], { cwd: ws.path, env });
    const cp = checkpoints(data.path);
    await cp.turnStarted("s1", ws.path, "p1");
    rmSync(join(ws.path, "run.sh"));
    await cp.turnFinished("s1", "p1");
    const outcome = await cp.restore(ws.path, cp.plan("s1", "p1")!);
    expect(outcome.filesChanged).toEqual(["run.sh"]);
    expect(statSync(join(ws.path, "run.sh")).mode & 0o777).toBe(0o755);
  });

  test("a restore under a folder that became a link (inside the workspace) is refused: the file behind the link is not written", async () => {
    await using ws = tempDir("p-cp-ws-");
    await using data = tempDir("p-cp-data-");
    mkdirSync(join(ws.path, "d"));
    mkdirSync(join(ws.path, "other"));
    writeFileSync(join(ws.path, "d", "x.txt"), "orig");
    writeFileSync(join(ws.path, "other", "x.txt"), "not the turn's");
    const cp = checkpoints(data.path);
    await cp.turnStarted("s1", ws.path, "p1");
    await cp.beforeWrite("s1", "d/x.txt");
    writeFileSync(join(ws.path, "d", "x.txt"), "edited");
    await cp.turnFinished("s1", "p1");
    rmSync(join(ws.path, "d"), { recursive: true });
    symlinkSync(join(ws.path, "other"), join(ws.path, "d"));
    const outcome = await cp.restore(ws.path, cp.plan("s1", "p1")!);
    expect(outcome).toEqual({ filesChanged: [], filesFailed: ["d/x.txt"] });
    expect(readFileSync(join(ws.path, "other", "x.txt"), "utf8")).toBe("not the turn's");
  });

  test("a turn records at most MAX_FILES_PER_TURN files; the rest are counted, not kept", async () => {
    await using ws = tempDir("p-cp-ws-");
    await using data = tempDir("p-cp-data-");
    const cp = checkpoints(data.path);
    await cp.turnStarted("s1", ws.path, "p1");
    for (let i = 0; i < MAX_FILES_PER_TURN + 5; i++) {
      await cp.beforeWrite("s1", `f${i}.txt`);
      writeFileSync(join(ws.path, `f${i}.txt`), "x");
    }
    await cp.turnFinished("s1", "p1");
    const [turn] = cp.snapshots("s1");
    expect(turn!.files).toHaveLength(MAX_FILES_PER_TURN);
    expect(turn!.filesOmitted).toBe(5);
    expect(turn!.diffStats.filesChanged).toBe(MAX_FILES_PER_TURN + 5);
  });

  test("status records: both names of a rename, paths with spaces, no headers or untracked entries", () => {
    const records = [
      "# branch.oid abc",
      "1 .M N... 100644 100644 100644 aaa bbb file with space.txt",
      "2 R. N... 100644 100644 100644 aaa bbb R100 new name.txt",
      "old name.txt",
      "u UU N... 100644 100644 100644 100644 a b c conflict.txt",
      "? untracked.txt",
    ];
    expect(statusPaths(records)).toEqual(["file with space.txt", "new name.txt", "old name.txt", "conflict.txt"]);
  });
});
