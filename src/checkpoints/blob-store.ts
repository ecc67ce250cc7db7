/**
 * Content-addressed file snapshots under `<data dir>/checkpoints/<pid>-<random>/`: one file per distinct
 * content, named by its sha256, owner-only (0600 files in 0700 folders), counted by reference so
 * that turns sharing a content share its bytes. The store is this daemon process's alone (the turn
 * records that name blobs live in its memory, `turn-log.ts`): its folder is new when it opens, and
 * the folders of daemon processes no longer running are removed then, never those of a live one.
 *
 * The byte bound is enforced by the caller (`checkpoints.ts` evicts whole turns, oldest first, before
 * a blob that would pass it is added); the store only counts.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Whether process `pid` exists (a signal-0 probe; EPERM means it exists under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface Blob {
  readonly size: number;
  refs: number;
}

export class BlobStore {
  private readonly blobs = new Map<string, Blob>();
  private total = 0;

  private constructor(private readonly dir: string) {}

  /** Opens a new store under `parent`, removing those of processes gone. */
  static open(parent: string): BlobStore {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    chmodSync(parent, 0o700);
    for (const name of readdirSync(parent)) {
      const pid = /^(\d+)-[0-9a-f]+$/.exec(name)?.[1];
      if (pid === undefined || !alive(Number(pid))) rmSync(join(parent, name), { recursive: true, force: true });
    }
    const dir = join(parent, `${process.pid}-${randomBytes(4).toString("hex")}`);
    mkdirSync(dir, { mode: 0o700 });
    return new BlobStore(dir);
  }

  /** Bytes of all stored blobs. */
  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.blobs.size;
  }

  static hashOf(bytes: Uint8Array): string {
    return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  }

  /** Bytes adding `bytes` would cost (0 when the content is stored already). */
  cost(hash: string, size: number): number {
    return this.blobs.has(hash) ? 0 : size;
  }

  /** Stores `bytes` under `hash` (once) and takes a reference to it. */
  add(hash: string, bytes: Uint8Array): void {
    const blob = this.blobs.get(hash);
    if (blob) {
      blob.refs++;
      return;
    }
    const file = join(this.dir, hash);
    const temp = `${file}.tmp`;
    writeFileSync(temp, bytes, { mode: 0o600 });
    renameSync(temp, file);
    this.blobs.set(hash, { size: bytes.byteLength, refs: 1 });
    this.total += bytes.byteLength;
  }

  /** Takes another reference to a stored blob. */
  retain(hash: string): void {
    const blob = this.blobs.get(hash);
    if (blob) blob.refs++;
  }

  /** Drops a reference; the last one deletes the blob. */
  release(hash: string): void {
    const blob = this.blobs.get(hash);
    if (!blob) return;
    if (--blob.refs > 0) return;
    this.blobs.delete(hash);
    this.total -= blob.size;
    try {
      unlinkSync(join(this.dir, hash));
    } catch {
      // Already gone: the count is what matters.
    }
  }

  read(hash: string): Buffer {
    return readFileSync(join(this.dir, hash));
  }
}
