/**
 * Live counters of the HTTP transport, shared by the front door (which caps them) and the routes,
 * and read by daemon status. `--max-connections` caps `connections`: requests inside the front door
 * plus event streams still open. A stream outlives the request that opened it and keeps its place
 * until it ends, for whatever reason (client gone, eviction, session end, shutdown).
 */
export class TransportStats {
  /** Requests inside the front door, until their response is ready. */
  activeRequests = 0;
  /** Open SSE event streams. */
  sseStreams = 0;
  /**
   * Requests whose stream is still open, each with what to run when it ends (set by the front door
   * once the handler has returned). Weak, so a request that is gone takes its entry with it.
   */
  private readonly openStreams = new WeakMap<Request, (() => void) | null>();

  /** What `--max-connections` caps. */
  get connections(): number {
    return this.activeRequests + this.sseStreams;
  }

  /** Counts a stream opened for `request`. The returned function ends it; calls after the first do nothing. */
  streamOpened(request: Request): () => void {
    this.sseStreams++;
    this.openStreams.set(request, null);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.sseStreams--;
      const then = this.openStreams.get(request);
      this.openStreams.delete(request);
      then?.();
    };
  }

  /** Runs `then` once the stream opened for `request` ends. False, running nothing, when none is open. */
  whenStreamEnds(request: Request, then: () => void): boolean {
    if (!this.openStreams.has(request)) return false;
    this.openStreams.set(request, then);
    return true;
  }
}
