/**
 * The built-in grep engine (used when ripgrep is not on the PATH): the model's JavaScript regular
 * expression runs in a Worker, never on the agent's event loop, because a backtracking pattern
 * (`(a|aa)+$` on a long line) can take seconds per line, and the agent serves every session from
 * one loop. The whole search gets GREP_TIME_BUDGET_MS; past it (or on cancel) the Worker is
 * terminated, which stops a match mid-way, and the call fails saying why.
 *
 * The Worker's source is inline (a Blob URL) so the compiled binary needs no extra entry point.
 * Files are read on the main thread through the contained reads and handed over one at a time.
 */
import type { GrepHit } from "./grep-ripgrep.ts";

/** Wall-clock time one grep call may spend matching; past it the search is stopped. */
export const GREP_TIME_BUDGET_MS = 10_000;

/** Tests every line of one file against the pattern; answers the matching lines (at most `max`). */
const WORKER_SOURCE = `
let regex = null;
self.onmessage = (event) => {
  const m = event.data;
  if (m.type === "pattern") { regex = new RegExp(m.pattern); return; }
  const hits = [];
  // A final newline ends the last line; it does not start another (as grep and ripgrep count lines).
  const lines = m.text === "" ? [] : m.text.split("\\n");
  if (m.text.endsWith("\\n")) lines.pop();
  for (let i = 0; i < lines.length && hits.length < m.max; i++) if (regex.test(lines[i])) hits.push({ line: i + 1, text: lines[i] });
  postMessage(hits);
};`;

/** Why a search stopped before its end. */
export class GrepStopped extends Error {}

export class RegexWorker {
  private readonly worker: Worker;
  private readonly url: string;
  private stopped: string | null = null;
  private pending: { resolve: (hits: GrepHit[]) => void; reject: (err: Error) => void } | null = null;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onAbort = () => this.stop("cancelled");

  constructor(
    pattern: string,
    private readonly signal: AbortSignal,
  ) {
    this.url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
    this.worker = new Worker(this.url);
    this.worker.onmessage = (event: MessageEvent<Array<{ line: number; text: string }>>) => {
      const pending = this.pending;
      this.pending = null;
      pending?.resolve(event.data.map((h) => ({ path: "", line: h.line, text: h.text })));
    };
    this.worker.onerror = (event) => this.stop(`the search failed: ${event.message}`);
    this.worker.postMessage({ type: "pattern", pattern });
    this.timer = setTimeout(
      () => this.stop(`the pattern took longer than ${GREP_TIME_BUDGET_MS / 1000} s to match (it may backtrack catastrophically, e.g. nested quantifiers like (a+)+); simplify it`),
      GREP_TIME_BUDGET_MS,
    );
    if (signal.aborted) this.onAbort();
    else signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The matching lines of one file's text (`path` left empty for the caller). */
  search(text: string, max: number): Promise<GrepHit[]> {
    if (this.stopped !== null) return Promise.reject(new GrepStopped(this.stopped));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage({ type: "text", text, max });
    });
  }

  /** Ends the search: the Worker is terminated, a waiting `search` rejects with `why`. */
  private stop(why: string): void {
    if (this.stopped !== null) return;
    this.stopped = why;
    this.close();
    const pending = this.pending;
    this.pending = null;
    pending?.reject(new GrepStopped(why));
  }

  /** Releases the Worker (idempotent). */
  close(): void {
    clearTimeout(this.timer);
    this.signal.removeEventListener("abort", this.onAbort);
    this.worker.terminate();
    URL.revokeObjectURL(this.url);
    this.stopped ??= "closed";
  }
}
