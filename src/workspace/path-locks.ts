/**
 * Per-path async mutex: writers of one real path run one after another, so a writer's hash check
 * and its rename are atomic with respect to every other writer in this daemon. Writers of
 * different paths run in parallel.
 */
import { FsError } from "../errors/daemon-error.ts";

/**
 * Paths locked (held or awaited) at once. An entry lives only while a writer holds or awaits it, so
 * the map is bounded by in-flight writes; past the cap a new path is refused with 503 `io_error`.
 */
export const MAX_LOCKED_PATHS = 1024;

export class PathLocks {
  /** Per path, the promise that settles when the last queued writer is done. */
  private readonly tails = new Map<string, Promise<void>>();

  get size(): number {
    return this.tails.size;
  }

  async run<T>(path: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(path);
    if (previous === undefined && this.tails.size >= MAX_LOCKED_PATHS)
      throw new FsError(503, "io_error", "too many concurrent writes", "retry shortly");
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const tail = previous === undefined ? done : previous.then(() => done);
    this.tails.set(path, tail);
    try {
      if (previous !== undefined) await previous;
      return await work();
    } finally {
      release();
      if (this.tails.get(path) === tail) this.tails.delete(path);
    }
  }
}
