/**
 * Incremental parser of one HTTP/1.1 response read off a raw socket (pure): feed it bytes as they
 * arrive; it yields the status and headers once the head is complete, then the body's bytes, with
 * `Content-Length` or `Transfer-Encoding: chunked` framing removed. `complete` turns true at the end
 * of the body (never, for an event stream that stays open). Bytes past the end are kept in `rest`
 * (the next response on a keep-alive connection).
 */

export interface ResponseHead {
  readonly status: number;
  /** Lowercased names. */
  readonly headers: ReadonlyMap<string, string>;
}

const CR = 13;
const LF = 10;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** Index of the first CRLF at or after `from`, or -1. */
function lineEnd(data: Uint8Array, from: number): number {
  for (let i = from; i + 1 < data.byteLength; i++) if (data[i] === CR && data[i + 1] === LF) return i;
  return -1;
}

function headEnd(data: Uint8Array): number {
  for (let i = 0; i + 3 < data.byteLength; i++) if (data[i] === CR && data[i + 1] === LF && data[i + 2] === CR && data[i + 3] === LF) return i;
  return -1;
}

export class HttpResponseReader {
  head: ResponseHead | null = null;
  complete = false;
  /** Bytes received after the end of this response. */
  rest: Uint8Array = new Uint8Array(0);
  private buffer: Uint8Array = new Uint8Array(0);
  /** Body bytes still expected: of the Content-Length, or of the current chunk (+2 for its CRLF). */
  private remaining = 0;
  private framing: "length" | "chunked" | "close" = "close";
  /** Inside a chunk's data (else before a chunk-size line). */
  private inChunk = false;
  /** Past the last (zero-size) chunk, waiting for its closing CRLF (no trailers are sent to us). */
  private lastChunk = false;

  /** Feeds received bytes; returns the body bytes they complete (possibly none). */
  push(bytes: Uint8Array): Uint8Array[] {
    if (this.complete) {
      this.rest = concat(this.rest, bytes);
      return [];
    }
    this.buffer = concat(this.buffer, bytes);
    if (this.head === null && !this.readHead()) return [];
    return this.readBody();
  }

  private readHead(): boolean {
    const end = headEnd(this.buffer);
    if (end === -1) return false;
    const lines = new TextDecoder().decode(this.buffer.subarray(0, end)).split("\r\n");
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
    if (status === null) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    this.head = { status: Number(status[1]), headers };
    this.buffer = this.buffer.subarray(end + 4);
    if (headers.get("transfer-encoding")?.toLowerCase().includes("chunked")) this.framing = "chunked";
    else if (headers.has("content-length")) {
      this.framing = "length";
      this.remaining = Number(headers.get("content-length"));
    }
    if (this.head.status === 204 || this.head.status === 304 || (this.framing === "length" && this.remaining === 0)) this.finish();
    return true;
  }

  private readBody(): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (this.framing === "close") {
      if (this.buffer.byteLength > 0) out.push(this.buffer);
      this.buffer = new Uint8Array(0);
      return out;
    }
    if (this.framing === "length") {
      const take = Math.min(this.remaining, this.buffer.byteLength);
      if (take > 0) out.push(this.buffer.subarray(0, take));
      this.buffer = this.buffer.subarray(take);
      this.remaining -= take;
      if (this.remaining === 0) this.finish();
      return out;
    }
    while (!this.complete) {
      if (this.lastChunk) {
        if (this.buffer.byteLength < 2) break;
        this.buffer = this.buffer.subarray(2);
        this.finish();
        break;
      }
      if (!this.inChunk) {
        const eol = lineEnd(this.buffer, 0);
        if (eol === -1) break;
        const size = parseInt(new TextDecoder().decode(this.buffer.subarray(0, eol)).split(";")[0]!, 16);
        if (!Number.isFinite(size)) throw new Error("malformed chunk size");
        this.buffer = this.buffer.subarray(eol + 2);
        if (size === 0) {
          this.lastChunk = true;
          continue;
        }
        this.inChunk = true;
        this.remaining = size + 2;
      }
      if (this.buffer.byteLength === 0) break;
      const take = Math.min(this.remaining, this.buffer.byteLength);
      const dataEnd = Math.min(take, Math.max(0, this.remaining - 2));
      if (dataEnd > 0) out.push(this.buffer.subarray(0, dataEnd));
      this.buffer = this.buffer.subarray(take);
      this.remaining -= take;
      if (this.remaining === 0) this.inChunk = false;
    }
    return out;
  }

  private finish(): void {
    this.complete = true;
    this.rest = this.buffer;
    this.buffer = new Uint8Array(0);
  }
}
