/**
 * A minimal SSE reader for `GET /session/:id/events`: collects every envelope in arrival order and
 * notices when the daemon ends the stream. `await using events = await openEvents(url, id)`.
 * The subscription is registered once this resolves (the daemon subscribes before answering).
 */
import { until } from "./until.ts";

export interface Envelope {
  id?: number;
  v: 1;
  type: string;
  data: any;
  promptId?: string;
  originatorClientId?: string;
  _meta: { serverTimestamp: number };
}

export interface EventStream extends AsyncDisposable {
  readonly status: number;
  /** Envelopes received so far. */
  readonly events: Envelope[];
  /** True once the daemon ended the stream. */
  readonly ended: boolean;
  /** The first envelope of `type` (already received or still to come). */
  next(type: string, timeoutMs?: number): Promise<Envelope>;
  /** Waits until the daemon ends the stream. */
  waitEnded(timeoutMs?: number): Promise<void>;
  types(): string[];
  close(): void;
}

export async function openEvents(baseUrl: string, sessionId: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/session/${encodeURIComponent(sessionId)}/events`, {
    headers: { Accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  const events: Envelope[] = [];
  let ended = false;
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      let buffer = "";
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let blank: number;
          while ((blank = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, blank);
            buffer = buffer.slice(blank + 2);
            const data = block
              .split("\n")
              .filter((line) => line.startsWith("data:"))
              .map((line) => line.slice(5).trimStart())
              .join("\n");
            if (data !== "") events.push(JSON.parse(data) as Envelope);
          }
        }
      } catch {
        // aborted by close()
      } finally {
        ended = true;
      }
    })();
  } else {
    ended = true;
    await res.body?.cancel();
  }
  const stream: EventStream = {
    status: res.status,
    events,
    get ended() {
      return ended;
    },
    next: (type, timeoutMs = 5000) => until(() => events.find((e) => e.type === type), timeoutMs, `a ${type} event`),
    waitEnded: async (timeoutMs = 5000) => void (await until(() => ended, timeoutMs, "the event stream to end")),
    types: () => events.map((e) => e.type),
    close: () => abort.abort(),
    async [Symbol.asyncDispose]() {
      abort.abort();
    },
  };
  return stream;
}
