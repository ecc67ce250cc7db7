/**
 * One keep-alive HTTP/1.1 connection over a raw TCP socket (`Bun.connect`), one request at a time.
 * Lighter and more direct than `fetch` (no client thread hop, no pool), so a sub-millisecond answer
 * is timed as the server gives it: `answeredAt` is taken on entry to the socket's data callback that
 * completed the response. Used for the prompt `202` and `POST /session` timings.
 */
import type { Socket } from "bun";
import { HttpResponseReader } from "./http-response-reader.ts";

export interface Answer {
  readonly status: number;
  readonly text: string;
  /** `performance.now()` just before the request was written, and when its last byte arrived. */
  readonly sentAt: number;
  readonly answeredAt: number;
}

/** A request that gets no complete answer in this long fails the bench (something broke). */
const ANSWER_TIMEOUT_MS = 30_000;

interface InFlight {
  reader: HttpResponseReader;
  body: Uint8Array[];
  sentAt: number;
  resolve: (answer: Answer) => void;
  reject: (err: Error) => void;
  timer: Timer;
}

export class KeepAliveClient {
  private inFlight: InFlight | null = null;
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly host: string,
  ) {}

  static async connect(url: string): Promise<KeepAliveClient> {
    const { hostname, port, host } = new URL(url);
    let client: KeepAliveClient | null = null;
    const socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        data: (_s, chunk) => client?.onData(chunk, performance.now()),
        close: () => client?.onClose(),
        error: (_s, err) => client?.onClose(err),
      },
    });
    socket.setNoDelay(true);
    client = new KeepAliveClient(socket, host);
    return client;
  }

  /** Sends one request (JSON body when given) and resolves with the complete answer. */
  request(method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error("connection closed"));
    if (this.inFlight !== null) return Promise.reject(new Error("one request at a time"));
    const body = json === undefined ? "" : JSON.stringify(json);
    const lines = [`${method} ${path} HTTP/1.1`, `Host: ${this.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    if (json !== undefined) lines.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`);
    const bytes = `${lines.join("\r\n")}\r\n\r\n${body}`;
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`${method} ${path}: no answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      this.inFlight = { reader: new HttpResponseReader(), body: [], sentAt: performance.now(), resolve, reject, timer };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.closed = true;
    this.socket.end();
  }

  private onData(chunk: Uint8Array, at: number): void {
    const flight = this.inFlight;
    if (flight === null) return;
    try {
      flight.body.push(...flight.reader.push(chunk));
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (!flight.reader.complete) return;
    clearTimeout(flight.timer);
    this.inFlight = null;
    const text = new TextDecoder().decode(Buffer.concat(flight.body));
    flight.resolve({ status: flight.reader.head!.status, text, sentAt: flight.sentAt, answeredAt: at });
  }

  private onClose(err?: Error): void {
    this.closed = true;
    this.fail(err ?? new Error("the server closed the connection"));
  }

  private fail(err: Error): void {
    const flight = this.inFlight;
    if (flight === null) return;
    clearTimeout(flight.timer);
    this.inFlight = null;
    flight.reject(err);
  }
}
