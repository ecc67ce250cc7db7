/**
 * File systems a data dir can sit on that a temp dir is not: `tmpfs(bytes)`, a tmpfs of that size
 * (a disk that fills up), and `readOnlyView(dir)`, a read-only bind mount of a dir (a read-only file
 * system). Mounting needs root; the machine and CI run as root. `mountTest` declares a test that
 * needs them: without root it is skipped with one line, and under `CI` it fails instead. Disposing
 * always unmounts (lazily, if something still holds the mount) and removes the mount point.
 */
import { test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "./until.ts";

export const CAN_MOUNT = process.getuid?.() === 0;

/** The skip is told once per test process, not once per test. */
let skipTold = false;

/** A test that mounts: skipped (one line) without root, failed under CI without root. */
export function mountTest(name: string, body: () => Promise<void>, timeoutMs: number): void {
  if (CAN_MOUNT) return void test(name, body, timeoutMs);
  if (process.env.CI) {
    test(name, () => {
      throw new Error("this test mounts a file system (tmpfs, a read-only bind mount) and needs root, as CI runs");
    });
    return;
  }
  if (!skipTold) console.log("skipping the tests that mount a file system (a full disk, a read-only data dir): they need root");
  skipTold = true;
  test.skip(name, body);
}

export interface Mount extends AsyncDisposable {
  readonly path: string;
}

function run(cmd: string[]): { ok: boolean; err: string } {
  const r = Bun.spawnSync(cmd, { stdout: "ignore", stderr: "pipe" });
  return { ok: r.exitCode === 0, err: r.stderr.toString().trim() };
}

function mounted(path: string, setup: string[][]): Mount {
  for (const cmd of setup) {
    const r = run(cmd);
    if (!r.ok) {
      run(["umount", path]);
      rmSync(path, { recursive: true, force: true });
      throw new Error(`${cmd.join(" ")} failed: ${r.err}`);
    }
  }
  return {
    path,
    async [Symbol.asyncDispose]() {
      try {
        // A process that just exited may still hold it for a moment.
        await until(() => run(["umount", path]).ok, 5000, `umount ${path}`);
      } catch {
        run(["umount", "-l", path]);
      }
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** A tmpfs of `bytes` on a new temp dir. */
export function tmpfs(bytes: number): Mount {
  const path = mkdtempSync(join(tmpdir(), "svc-tmpfs-"));
  return mounted(path, [["mount", "-t", "tmpfs", "-o", `size=${bytes},mode=0700`, "tmpfs", path]]);
}

/** `dir` seen through a read-only bind mount on a new temp dir. */
export function readOnlyView(dir: string): Mount {
  const path = mkdtempSync(join(tmpdir(), "svc-ro-"));
  return mounted(path, [
    ["mount", "--bind", dir, path],
    ["mount", "-o", "remount,ro,bind", path],
  ]);
}
