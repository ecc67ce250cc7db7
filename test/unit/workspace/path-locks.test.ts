/** `PathLocks`: one writer per path at a time, different paths in parallel, entries dropped when idle. */
import { describe, expect, test } from "bun:test";
import { FsError } from "../../../src/errors/daemon-error.ts";
import { MAX_LOCKED_PATHS, PathLocks } from "../../../src/workspace/path-locks.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("PathLocks", () => {
  test("writers of one path run one after another, in arrival order", async () => {
    const locks = new PathLocks();
    const log: string[] = [];
    const first = gate();
    const a = locks.run("/p", async () => {
      log.push("a start");
      await first.opened;
      log.push("a end");
    });
    const b = locks.run("/p", async () => {
      log.push("b");
    });
    await Promise.resolve();
    expect(log).toEqual(["a start"]);
    first.open();
    await Promise.all([a, b]);
    expect(log).toEqual(["a start", "a end", "b"]);
    expect(locks.size).toBe(0);
  });

  test("different paths do not wait for each other", async () => {
    const locks = new PathLocks();
    const held = gate();
    const slow = locks.run("/a", () => held.opened);
    expect(await locks.run("/b", async () => "b done")).toBe("b done");
    held.open();
    await slow;
  });

  test("a failing writer releases the lock", async () => {
    const locks = new PathLocks();
    await expect(locks.run("/p", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await locks.run("/p", async () => 1)).toBe(1);
    expect(locks.size).toBe(0);
  });

  test("past the cap a new path is refused with 503 io_error; queued paths still proceed", async () => {
    const locks = new PathLocks();
    const held = gate();
    const running = Array.from({ length: MAX_LOCKED_PATHS }, (_, i) => locks.run(`/p${i}`, () => held.opened));
    const refused = await locks.run("/other", async () => 1).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FsError);
    expect((refused as FsError).status).toBe(503);
    const queued = locks.run("/p0", async () => "queued");
    held.open();
    await Promise.all(running);
    expect(await queued).toBe("queued");
    expect(locks.size).toBe(0);
  });
});
