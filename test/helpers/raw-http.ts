/**
 * Raw HTTP/1.1 over a TCP socket (`Bun.connect`), for requests `fetch` cannot send: an empty or
 * missing `Host`, a port-less `Host`, malformed request lines, NUL bytes, invalid UTF-8, oversized
 * headers, or a request that is never finished.
 *
 * `rawExchange` writes the bytes and reads one response: it resolves when the response is complete
 * (by Content-Length, chunked terminator, or the server closing), or with `response: null` when the
 * server closed without answering. It never waits longer than `timeoutMs` (then it rejects).
 */
import type { Socket } from "bun";

export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lowercased names; repeated headers joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Uint8Array;
  readonly text: string;
}

export interface RawExchange {
  readonly response: RawResponse | null;
  /** Every byte the server sent. */
  readonly bytes: Uint8Array;
}

export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  /** In order, sent verbatim; nothing is added but `Connection: close` and `Content-Length`, not even `Host`. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Uint8Array;
}

const CRLF = "\r\n";
const encoder = new TextEncoder();

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

function indexOfSeq(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= hay.byteLength - needle.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const HEADER_END = encoder.encode("\r\n\r\n");
const LINE_END = encoder.encode("\r\n");

/** Decodes a chunked body; null while incomplete. */
function dechunk(data: Uint8Array): Uint8Array | null {
  let pos = 0;
  let out: Uint8Array = new Uint8Array(0);
  for (;;) {
    const eol = indexOfSeq(data, LINE_END, pos);
    if (eol === -1) return null;
    const size = parseInt(new TextDecoder().decode(data.subarray(pos, eol)).split(";")[0]!.trim(), 16);
    if (!Number.isFinite(size)) throw new Error("malformed chunk size");
    pos = eol + 2;
    if (size === 0) return indexOfSeq(data, LINE_END, pos) === -1 ? null : out;
    if (data.byteLength < pos + size + 2) return null;
    out = concat(out, data.subarray(pos, pos + size));
    pos += size + 2;
  }
}

/** Parses one final response from `data` (interim 1xx skipped); null while incomplete (unless `closed`, then what there is). */
function parseResponse(data: Uint8Array, closed: boolean, headRequest: boolean): RawResponse | null {
  const end = indexOfSeq(data, HEADER_END);
  if (end === -1) return null;
  const head = new TextDecoder().decode(data.subarray(0, end)).split(CRLF);
  const statusLine = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(head[0]!);
  if (!statusLine) throw new Error(`not an HTTP response: ${JSON.stringify(head[0])}`);
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  const rest = data.subarray(end + 4);
  const status = Number(statusLine[1]);
  // An interim answer (100 Continue) is followed by the real one.
  if (status >= 100 && status < 200 && status !== 101) return parseResponse(rest, closed, headRequest);
  let body: Uint8Array | null;
  if (headRequest || status === 204 || status === 304 || status === 101) body = new Uint8Array(0);
  else if (headers.get("transfer-encoding")?.toLowerCase().includes("chunked")) body = dechunk(rest);
  else if (headers.has("content-length")) {
    const length = Number(headers.get("content-length"));
    body = rest.byteLength >= length ? rest.subarray(0, length) : null;
  } else body = closed ? rest : null;
  if (body === null) return null;
  return { status, statusText: statusLine[2]!, headers, body, text: new TextDecoder().decode(body) };
}

export interface RawExchangeOptions {
  readonly timeoutMs?: number;
  /** The request was HEAD: the response has no body whatever its headers say. */
  readonly head?: boolean;
  /** Shut our side down after writing (the server sees EOF; Bun then closes without answering). */
  readonly halfClose?: boolean;
}

/** Sends `request` bytes to 127.0.0.1:`port` and reads one response. */
export function rawExchange(port: number, request: string | Uint8Array, options: RawExchangeOptions = {}): Promise<RawExchange> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise<RawExchange>((resolve, reject) => {
    let received: Uint8Array = new Uint8Array(0);
    let settled = false;
    let socket: Socket | null = null;
    const finish = (closed: boolean, error?: Error) => {
      if (settled) return;
      let response: RawResponse | null;
      try {
        response = parseResponse(received, closed, options.head ?? false);
      } catch (err) {
        settled = true;
        clearTimeout(timer);
        socket?.end();
        reject(err);
        return;
      }
      if (response === null && !closed && !error) return;
      settled = true;
      clearTimeout(timer);
      socket?.end();
      if (error && received.byteLength === 0) resolve({ response: null, bytes: received });
      else resolve({ response, bytes: received });
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket?.terminate();
      reject(new Error(`no complete response within ${timeoutMs} ms; got ${JSON.stringify(new TextDecoder().decode(received).slice(0, 200))}`));
    }, timeoutMs);
    // A large request is written in pieces as the socket drains.
    let pending: Uint8Array = new Uint8Array(0);
    let shut = false;
    const writeMore = (s: Socket) => {
      while (pending.byteLength > 0) {
        const written = s.write(pending);
        if (written <= 0) return;
        pending = pending.subarray(written);
      }
      if (options.halfClose && !shut) {
        shut = true;
        s.shutdown(true);
      }
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          socket = s;
          pending = typeof request === "string" ? encoder.encode(request) : request;
          writeMore(s);
        },
        drain(s) {
          writeMore(s);
        },
        data(_s, chunk) {
          received = concat(received, chunk);
          finish(false);
        },
        end() {
          finish(true);
        },
        close() {
          finish(true);
        },
        error(_s, err) {
          finish(true, err);
        },
        connectError(_s, err) {
          finish(true, err);
        },
      },
    }).catch((err: Error) => finish(true, err));
  });
}

/** Serialises a request (`Connection: close` appended unless a Connection header is given). */
export function buildRequest(req: RawRequest): Uint8Array {
  const headers = [...(req.headers ?? [])];
  if (!headers.some(([n]) => n.toLowerCase() === "connection")) headers.push(["Connection", "close"]);
  const body = req.body === undefined ? new Uint8Array(0) : typeof req.body === "string" ? encoder.encode(req.body) : req.body;
  if (req.body !== undefined && !headers.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n)))
    headers.push(["Content-Length", String(body.byteLength)]);
  const head = `${req.method ?? "GET"} ${req.path} HTTP/1.1${CRLF}${headers.map(([n, v]) => `${n}: ${v}${CRLF}`).join("")}${CRLF}`;
  return concat(encoder.encode(head), body);
}

/** One request, one response (rejects when the server closes without answering). */
export async function rawRequest(port: number, req: RawRequest, timeoutMs?: number): Promise<RawResponse> {
  const { response } = await rawExchange(port, buildRequest(req), { timeoutMs, head: req.method === "HEAD" });
  if (response === null) throw new Error(`the server closed the connection without answering ${req.method ?? "GET"} ${req.path}`);
  return response;
}

/**
 * Opens a socket and leaves it half-open: the bytes are written and nothing more. Dispose closes it.
 * Resolves once the connection is established.
 */
export async function openHalfOpen(port: number, partial: string): Promise<AsyncDisposable & { readonly closed: () => boolean }> {
  let closed = false;
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(s) {
        s.write(partial);
      },
      data() {},
      close() {
        closed = true;
      },
      error() {
        closed = true;
      },
    },
  });
  return {
    closed: () => closed,
    async [Symbol.asyncDispose]() {
      socket.terminate();
    },
  };
}
