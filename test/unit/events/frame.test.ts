/** SSE encoding of event envelopes: one frame per event, one-line JSON data, `type` = `event:`. */
import { describe, expect, test } from "bun:test";
import { encodeFrame } from "../../../src/events/frame.ts";

describe("encodeFrame", () => {
  test("an id-carrying frame is `id:`, `event:`, one `data:` line and a blank line", () => {
    const frame = encodeFrame(7, "turn_complete", { stopReason: "end_turn" }, { promptId: "p1", originatorClientId: "client_a" }, 1234);
    expect(frame.text).toBe(
      'id: 7\nevent: turn_complete\ndata: {"id":7,"v":1,"type":"turn_complete","data":{"stopReason":"end_turn"},"promptId":"p1","originatorClientId":"client_a","_meta":{"serverTimestamp":1234}}\n\n',
    );
    expect(frame.id).toBe(7);
    expect(frame.type).toBe("turn_complete");
    expect(frame.envelope).toEqual({ id: 7, v: 1, type: "turn_complete", data: { stopReason: "end_turn" }, promptId: "p1", originatorClientId: "client_a", _meta: { serverTimestamp: 1234 } });
  });

  test("a synthetic frame has no `id:` line and no id in its envelope", () => {
    const frame = encodeFrame(undefined, "slow_client_warning", { queueSize: 12 }, {}, 5);
    expect(frame.text).toBe('event: slow_client_warning\ndata: {"v":1,"type":"slow_client_warning","data":{"queueSize":12},"_meta":{"serverTimestamp":5}}\n\n');
    expect(frame.id).toBeUndefined();
    expect("id" in frame.envelope).toBe(false);
  });

  test("omits promptId and originatorClientId when not given", () => {
    const frame = encodeFrame(1, "session_update", {});
    expect(Object.keys(frame.envelope)).toEqual(["id", "v", "type", "data", "_meta"]);
  });

  test("payload line breaks stay escaped inside the single data line", () => {
    const frame = encodeFrame(1, "session_update", { text: "line 1\nline 2\r\nline 3\u2028" });
    const lines = frame.text.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines.filter((l) => l.startsWith("data: "))).toHaveLength(1);
    expect(JSON.parse(lines[2]!.slice("data: ".length)).data.text).toBe("line 1\nline 2\r\nline 3\u2028");
    expect(lines.slice(3)).toEqual(["", ""]);
  });

  test("counts UTF-8 bytes of the whole frame", () => {
    const frame = encodeFrame(1, "session_update", { text: "é€😀" });
    expect(frame.bytes).toBe(new TextEncoder().encode(frame.text).byteLength);
    expect(frame.bytes).toBeGreaterThan(frame.text.length);
  });

  test("refuses an event type that would break the frame", () => {
    expect(() => encodeFrame(1, "bad\ntype", {})).toThrow();
    expect(() => encodeFrame(1, "bad\rtype", {})).toThrow();
    expect(() => encodeFrame(1, "", {})).toThrow();
  });
});
