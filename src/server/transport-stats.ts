/** Live counters of the HTTP transport, read by daemon status and the connection cap. */
export class TransportStats {
  /** Requests currently inside the front door (a streaming response counts until its handler returns). */
  activeRequests = 0;
  /** Open SSE event streams. */
  sseStreams = 0;
}
