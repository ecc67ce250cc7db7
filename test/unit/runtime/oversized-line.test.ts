/** The owner of a line too long to keep, read as it streams past, in any key order and chunking. */
import { describe, expect, test } from "bun:test";
import { LineOwnerScanner, MAX_CAPTURE_BYTES, type LineOwner } from "../../../src/runtime/oversized-line.ts";

const encoder = new TextEncoder();

/** The owner of `line`, fed in pieces of `size` bytes. */
function ownerOf(line: string, size = Infinity): LineOwner {
  const bytes = encoder.encode(line);
  const scanner = new LineOwnerScanner();
  const step = Math.min(size, bytes.length || 1);
  for (let i = 0; i < bytes.length; i += step) scanner.push(bytes.subarray(i, i + step));
  return scanner.owner();
}

const PAD = "p".repeat(50_000);

describe("LineOwnerScanner", () => {
  const cases: Array<[string, string, LineOwner]> = [
    ["an answer, id first", `{"jsonrpc":"2.0","id":12,"result":{"pad":"${PAD}"}}`, { id: 12, method: null, sessionId: null, kind: "response" }],
    ["an answer, id last", `{"jsonrpc":"2.0","result":{"pad":"${PAD}","id":5},"id":"req-9"}`, { id: "req-9", method: null, sessionId: null, kind: "response" }],
    ["an error answer", `{"error":{"code":1,"message":"${PAD}"},"id":3}`, { id: 3, method: null, sessionId: null, kind: "response" }],
    ["a notification for a session", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"content":{"text":"${PAD}"}}}}`, { id: null, method: "session/update", sessionId: "s-1", kind: "notification" }],
    ["sessionId after the payload", `{"params":{"update":{"sessionId":"inner","text":"${PAD}"},"sessionId":"outer"},"method":"session/update"}`, { id: null, method: "session/update", sessionId: "outer", kind: "notification" }],
    ["a request of the agent", `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"title":"${PAD}"}}}`, { id: 0, method: "session/request_permission", sessionId: "s", kind: "request" }],
    ["escaped quotes and backslashes in strings", `{"params":{"a":"x\\"y\\\\","sessionId":"s\\"2"},"method":"m\\\\n","x":"${PAD}\\\\"}`, { id: null, method: "m\\n", sessionId: 's"2', kind: "notification" }],
    ["keys that look alike deeper down are ignored", `{"result":{"id":1,"method":"no","params":{"sessionId":"no"}},"id":2}`, { id: 2, method: null, sessionId: null, kind: "response" }],
    ["an id with no result or error is no answer", `{"id":4,"pad":"${PAD}"}`, { id: 4, method: null, sessionId: null, kind: "unknown" }],
    ["a sessionId outside params is not the session", `{"method":"x","_meta":{"sessionId":"no"},"params":{"p":"${PAD}"}}`, { id: null, method: "x", sessionId: null, kind: "notification" }],
    ["not an object", `["method","session/update"]`, { id: null, method: null, sessionId: null, kind: "unknown" }],
    ["not JSON at all", `hello ${PAD}`, { id: null, method: null, sessionId: null, kind: "unknown" }],
    ["a value past the capture bound counts as absent", `{"method":"${"m".repeat(MAX_CAPTURE_BYTES)}","params":{"sessionId":"s"}}`, { id: null, method: null, sessionId: "s", kind: "unknown" }],
    ["arrays and deep nesting", `{"params":[[[{"sessionId":"no"}]]],"result":[1,{"a":[${"[".repeat(1000)}${"]".repeat(1000)}]}],"id":-1.5e3}`, { id: -1500, method: null, sessionId: null, kind: "response" }],
  ];
  for (const [name, line, expected] of cases)
    test(name, () => {
      for (const size of [1, 3, 1000, Infinity]) expect(ownerOf(line, size)).toEqual(expected);
    });

  test("a 17 MB line full of escapes streams through in bounded memory", () => {
    const line = `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"text":"${'a\\"'.repeat(17 * 1024 * 1024 / 3)}"},"sessionId":"big"}}`;
    const started = performance.now();
    expect(ownerOf(line, 64 * 1024)).toEqual({ id: null, method: "session/update", sessionId: "big", kind: "notification" });
    console.error(`scanned ${(line.length / 1024 / 1024).toFixed(0)} MB in ${(performance.now() - started).toFixed(0)} ms`);
  });
});
