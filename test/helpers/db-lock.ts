/**
 * Another process holding an SQLite database's write lock, as a backup tool or a sqlite3 shell
 * would (test/fixtures/db-lock-holder.ts: `BEGIN EXCLUSIVE`), until disposed. `exclusive`: the
 * database whole, readers kept out too (`locking_mode=EXCLUSIVE`), taken once no other connection
 * has it open (a daemon's closes when idle, `STORE_IDLE_CLOSE_MS`).
 */
import { join } from "node:path";

const LOCK_HOLDER = join(import.meta.dir, "../fixtures/db-lock-holder.ts");

/** Resolves once the lock is held; disposing releases it and waits for the holder to exit. */
export async function holdLock(db: string, { exclusive = false } = {}): Promise<AsyncDisposable & { proc: Bun.Subprocess<"pipe", "pipe", "inherit"> }> {
  const proc = Bun.spawn([process.execPath, LOCK_HOLDER, db, ...(exclusive ? ["exclusive"] : [])], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("locked\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the lock holder exited early: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    proc,
    async [Symbol.asyncDispose]() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}
