import { describe, expect, test } from "bun:test";
import { HttpResponseReader } from "../../../bench/lib/http-response-reader.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (pieces: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(pieces));

/** Feeds `wire` in pieces of `size` bytes and returns the body and the reader. */
function feed(wire: string, size: number): { body: string; reader: HttpResponseReader } {
  const reader = new HttpResponseReader();
  const all = bytes(wire);
  const body: Uint8Array[] = [];
  for (let i = 0; i < all.byteLength; i += size) body.push(...reader.push(all.subarray(i, i + size)));
  return { body: text(body), reader };
}

describe("bench HTTP response reader", () => {
  test("reads a Content-Length body and keeps what follows for the next response", () => {
    for (const size of [1, 3, 1000]) {
      const { body, reader } = feed('HTTP/1.1 202 Accepted\r\nContent-Length: 11\r\nX-A: b\r\n\r\n{"ok":true}HTTP/1.1', size);
      expect(reader.head?.status).toBe(202);
      expect(reader.head?.headers.get("x-a")).toBe("b");
      expect(body).toBe('{"ok":true}');
      expect(reader.complete).toBe(true);
      expect(new TextDecoder().decode(reader.rest)).toBe("HTTP/1.1");
    }
  });

  test("removes chunked framing split at any byte boundary", () => {
    const wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nd\r\nevent: x\n\n\u00e9!\r\n0\r\n\r\n";
    for (const size of [1, 2, 7, 1000]) {
      const { body, reader } = feed(wire, size);
      expect(body).toBe("helloevent: x\n\n\u00e9!");
      expect(reader.complete).toBe(true);
      expect(reader.rest.byteLength).toBe(0);
    }
  });

  test("an open event stream yields its data as it comes and never completes", () => {
    const reader = new HttpResponseReader();
    expect(reader.push(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"))).toEqual([]);
    expect(reader.head).toBeNull();
    expect(text(reader.push(bytes("\r\nd\r\nretry: 3000\n\n\r\n")))).toBe("retry: 3000\n\n");
    expect(text(reader.push(bytes("4\r\nab")))).toBe("ab");
    expect(text(reader.push(bytes("cd\r\n")))).toBe("cd");
    expect(reader.complete).toBe(false);
  });

  test("a 204 has no body", () => {
    const { body, reader } = feed("HTTP/1.1 204 No Content\r\n\r\n", 4);
    expect(body).toBe("");
    expect(reader.complete).toBe(true);
  });
});
