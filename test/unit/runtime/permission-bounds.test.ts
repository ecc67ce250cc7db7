/** The byte bounds of a permission request (`src/runtime/permission-bounds.ts`) and the agent's budget of held ones (`permission-budget.ts`). */
import { describe, expect, test } from "bun:test";
import {
  boundOption,
  boundPermissionParams,
  boundToolCall,
  CUT_MARK,
  MAX_OPTION_ID_BYTES,
  MAX_OPTION_NAME_BYTES,
  MAX_PERMISSION_OPTIONS,
  MAX_TOOL_CALL_BYTES,
  MIN_CUT_BYTES,
  permissionRefusal,
  SUMMARY_TEXT_BYTES,
  toolCallSummary,
} from "../../../src/runtime/permission-bounds.ts";
import { PENDING_PERMISSION_BYTES, PermissionBudget } from "../../../src/runtime/permission-budget.ts";

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
const option = (optionId: string) => ({ optionId, name: "Allow", kind: "allow_once" });
const text = (t: string) => ({ type: "content", content: { type: "text", text: t } });
const call = (extra: Record<string, unknown>): Record<string, unknown> => ({ toolCallId: "c1", title: "Run it", kind: "execute", status: "pending", ...extra });

describe("permissionRefusal", () => {
  test(`${MAX_PERMISSION_OPTIONS} options pass, one more is refused`, () => {
    expect(permissionRefusal(Array.from({ length: MAX_PERMISSION_OPTIONS }, (_, i) => option(`o${i}`)))).toBeNull();
    expect(permissionRefusal(Array.from({ length: MAX_PERMISSION_OPTIONS + 1 }, (_, i) => option(`o${i}`)))).toEqual({ reason: "too_many_options", options: MAX_PERMISSION_OPTIONS + 1, limit: MAX_PERMISSION_OPTIONS });
  });

  test(`an id of ${MAX_OPTION_ID_BYTES} UTF-8 bytes passes, one more byte is refused`, () => {
    expect(permissionRefusal([option("€".repeat(42) + "xx")])).toBeNull(); // 128 bytes
    expect(permissionRefusal([option("€".repeat(43))])).toEqual({ reason: "option_id_too_long", bytes: 129, limit: MAX_OPTION_ID_BYTES });
  });
});

describe("boundOption", () => {
  test("keeps the id as sent, cuts the name in bytes with …, drops everything else", () => {
    const bounded = boundOption({ optionId: "yes", name: "€".repeat(1000), kind: "allow_once", _meta: { pad: "x".repeat(1000) } });
    expect(Object.keys(bounded)).toEqual(["optionId", "name", "kind"]);
    expect(bounded.optionId).toBe("yes");
    expect(Buffer.byteLength(bounded.name)).toBeLessThanOrEqual(MAX_OPTION_NAME_BYTES);
    expect(bounded.name).toBe(`${"€".repeat(84)}…`);
  });
});

describe("boundToolCall", () => {
  test("a call within the bound is the very object sent", () => {
    const small = call({ content: [text("ok")] });
    expect(boundToolCall(small)).toBe(small);
  });

  test("an oversized call keeps its identity, cuts text and raw input with markers, names a diff it cannot keep whole, and fits", () => {
    const big = "z".repeat(2 * MAX_TOOL_CALL_BYTES);
    const sent = call({
      locations: Array.from({ length: 100 }, (_, i) => ({ path: `/w/f${i}`, line: i })),
      rawInput: { command: big },
      rawOutput: { out: big },
      content: [text(big), { type: "diff", path: "/w/a.ts", oldText: "", newText: big }, text("tail")],
      _meta: { origin: "agent" },
    });
    const cut = boundToolCall(sent) as any;
    expect(bytes(cut)).toBeLessThanOrEqual(MAX_TOOL_CALL_BYTES);
    expect(cut).toMatchObject({ toolCallId: "c1", title: "Run it", kind: "execute", status: "pending" });
    expect(cut.locations).toHaveLength(32);
    expect(cut.rawInput).toMatchObject({ truncated: true, totalBytes: bytes(sent.rawInput) });
    expect(cut.rawOutput).toEqual({ truncated: true, totalBytes: bytes(sent.rawOutput) });
    expect(cut.content[0].content.text).toEndWith(`\n[cut by the daemon: ${big.length - 64 * 1024} more bytes not shown]`);
    expect(cut.content[1].content.text).toStartWith("[diff of /w/a.ts not shown: ");
    expect(cut.content[2]).toEqual(text("tail"));
    expect(cut._meta.origin).toBe("agent");
    expect(cut._meta[CUT_MARK]).toEqual({ bytes: bytes(sent), limit: MAX_TOOL_CALL_BYTES });
  });

  test("blocks past the bound are replaced by one note", () => {
    const blocks = Array.from({ length: 40 }, () => text("y".repeat(60 * 1024)));
    const cut = boundToolCall(call({ content: blocks })) as any;
    expect(bytes(cut)).toBeLessThanOrEqual(MAX_TOOL_CALL_BYTES);
    expect(cut.content.at(-1).content.text).toMatch(/^\[\d+ more content blocks not shown: over the 1048576 bytes the daemon keeps of a permission request\]$/);
    expect(cut.content.length).toBeGreaterThan(10);
  });

  test("below MIN_CUT_BYTES of room, or when escaping floods the rest, only the identity and a note stay", () => {
    const sent = call({ content: [text("w".repeat(MIN_CUT_BYTES))] });
    const stub = boundToolCall(sent, MIN_CUT_BYTES - 1) as any;
    expect(stub.content).toEqual([text(`[the tool call (${bytes(sent)} bytes) is not shown: over the ${MIN_CUT_BYTES - 1} bytes the daemon can keep for it]`)]);
    expect(bytes(stub)).toBeLessThan(2048);
    const escaped = boundToolCall(call({ title: "\u0001".repeat(4000), locations: Array.from({ length: 32 }, () => ({ path: "\u0001".repeat(1024) })), content: [text("v".repeat(MAX_TOOL_CALL_BYTES))] }), MIN_CUT_BYTES) as any;
    expect(bytes(escaped)).toBeLessThanOrEqual(MIN_CUT_BYTES);
  });
});

describe("toolCallSummary", () => {
  test("the identity only, each member short; an overlong id is left out", () => {
    expect(toolCallSummary(call({ content: [text("x")], rawInput: { a: 1 } }))).toEqual({ toolCallId: "c1", title: "Run it", kind: "execute", status: "pending" });
    const summary = toolCallSummary(call({ toolCallId: "i".repeat(SUMMARY_TEXT_BYTES + 1), title: "t".repeat(10_000) }));
    expect(summary.toolCallId).toBeUndefined();
    expect(Buffer.byteLength(summary.title as string)).toBeLessThanOrEqual(SUMMARY_TEXT_BYTES);
  });
});

describe("boundPermissionParams and the agent's budget", () => {
  const params = (kib: number) => ({ sessionId: "s", options: [option("yes")], toolCall: call({ content: Array.from({ length: 32 }, () => text("p".repeat((kib * 1024) / 32))) }) });

  test("params are bounded in place: the tool call, and the options when not too many", () => {
    const p: Record<string, unknown> = { ...params(4096), options: [{ ...option("yes"), name: "n".repeat(1000), _meta: {} }] };
    expect(boundPermissionParams(p, MAX_TOOL_CALL_BYTES)).toBe(bytes(p.toolCall));
    expect(bytes(p.toolCall)).toBeLessThanOrEqual(MAX_TOOL_CALL_BYTES);
    expect(p.options).toEqual([{ optionId: "yes", name: `${"n".repeat(MAX_OPTION_NAME_BYTES - 3)}…`, kind: "allow_once" }]);
  });

  test("of the request's other members only a short sessionId and a small _meta stay: padding anywhere else is dropped as it arrives", () => {
    const pad = "x".repeat(64 * 1024);
    const p: Record<string, unknown> = { ...params(1), _meta: { pad }, extra: pad, nested: { pad } };
    boundPermissionParams(p, MAX_TOOL_CALL_BYTES);
    expect(Object.keys(p).sort()).toEqual(["options", "sessionId", "toolCall"]);
    const small: Record<string, unknown> = { ...params(1), _meta: { trace: "t" }, sessionId: "s".repeat(4096) };
    boundPermissionParams(small, MAX_TOOL_CALL_BYTES);
    expect(small).toMatchObject({ _meta: { trace: "t" }, sessionId: "" });
    expect(bytes(small)).toBeLessThan(4096);
  });

  test("once the budget is spent a request keeps its identity and a note; an answer gives its bytes back", () => {
    const budget = new PermissionBudget();
    const admitted = Array.from({ length: PENDING_PERMISSION_BYTES / MAX_TOOL_CALL_BYTES + 4 }, (_, i) => {
      const p: Record<string, unknown> = params(2048);
      budget.admit(i, p);
      return p;
    });
    expect(budget.heldBytes).toBeLessThanOrEqual(PENDING_PERMISSION_BYTES);
    expect(bytes(admitted[0]!.toolCall)).toBeGreaterThan(MAX_TOOL_CALL_BYTES - 64 * 1024);
    const last = admitted.at(-1)!.toolCall as any;
    expect(bytes(last)).toBeLessThan(2048);
    expect(last.content).toEqual([text(expect.stringMatching(/^\[32 more content blocks not shown: over the \d+ bytes the daemon keeps of a permission request\]$/))]);
    const held = budget.heldBytes;
    budget.answered(0);
    expect(budget.heldBytes).toBe(held - bytes(admitted[0]!.toolCall));
    budget.answered(0);
    budget.answered("unknown");
    expect(budget.heldBytes).toBe(held - bytes(admitted[0]!.toolCall));
    const next: Record<string, unknown> = params(2048);
    budget.admit("again", next);
    expect(bytes(next.toolCall)).toBeGreaterThan(MAX_TOOL_CALL_BYTES - 64 * 1024);
  });

  test("an id reused while pending: its answer frees the smallest holding, never the large one another request still holds", () => {
    const budget = new PermissionBudget();
    budget.admit(7, params(2048));
    const large = budget.heldBytes;
    budget.admit(7, params(1));
    budget.answered(7);
    expect(budget.heldBytes).toBe(large);
  });
});
