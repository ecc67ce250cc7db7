/** The web UI's transcript model (pure): how event envelopes fold into what the chat view shows. */
import { describe, expect, test } from "bun:test";
import type { EventEnvelope } from "../../src/client/types.ts";
import { diffLines, MAX_DIFF_CHARS, MAX_DIFF_LINES } from "../../src/web/diff-lines.ts";
import { MAX_ITEMS, TranscriptModel } from "../../src/web/transcript-model.ts";

let nextId = 1;
const ev = (type: string, data: Record<string, unknown>, promptId?: string): EventEnvelope => ({ id: nextId++, v: 1, type, data, promptId, _meta: { serverTimestamp: 0 } });
const update = (u: Record<string, unknown>, promptId = "p1") => ev("session_update", { sessionId: "s", update: u }, promptId);
const text = (t: string) => ({ type: "text", text: t });

const at = (e: EventEnvelope, ms: number): EventEnvelope => ({ ...e, _meta: { serverTimestamp: ms } });

describe("TranscriptModel: how turns end (issue 29)", () => {
  test("each turn ends in an item with its stop reason and duration; a cancelled one too, live or replayed", () => {
    for (const replayed of [false, true]) {
      const m = new TranscriptModel();
      m.apply(at(update({ sessionUpdate: "user_message_chunk", content: text("first"), _meta: { source: "bridge-echo" } }, "p1"), 1000), replayed);
      m.apply(at(update({ sessionUpdate: "agent_thought_chunk", content: text("hmm") }, "p1"), 1100), replayed);
      expect(m.snapshot()).toMatchObject({ running: true, runningSince: 1000, thinking: true, firstPrompt: "first" });
      m.apply(at(update({ sessionUpdate: "agent_message_chunk", content: text("ok") }, "p1"), 1200), replayed);
      expect(m.snapshot().thinking).toBe(false);
      m.apply(at(ev("turn_complete", { promptId: "p1", stopReason: "end_turn" }), 3500), replayed);
      m.apply(at(update({ sessionUpdate: "user_message_chunk", content: text("second"), _meta: { source: "bridge-echo" } }, "p2"), 4000), replayed);
      m.apply(at(ev("turn_complete", { promptId: "p2", stopReason: "cancelled" }), 4250), replayed);
      m.apply(at(update({ sessionUpdate: "user_message_chunk", content: text("third"), _meta: { source: "bridge-echo" } }, "p3"), 5000), replayed);
      m.apply(at(ev("turn_error", { promptId: "p3", message: "model down" }), 5100), replayed);
      const s = m.snapshot();
      expect(s.items.filter((i) => i.kind === "turn")).toMatchObject([
        { stopReason: "end_turn", ms: 2500 },
        { stopReason: "cancelled", ms: 250 },
      ]);
      expect(s.items.at(-1)).toMatchObject({ kind: "error", message: "model down", turn: { ms: 100 } });
      expect(s).toMatchObject({ running: false, runningSince: undefined, firstPrompt: "first" });
    }
  });

  test("a turn_complete seen twice ends its turn once; a tool call records when it started and finished", () => {
    const m = new TranscriptModel();
    m.apply(at(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Run", status: "in_progress" }), 100));
    m.apply(at(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }), 900));
    m.apply(at(ev("turn_complete", { promptId: "p1", stopReason: "end_turn" }), 1000));
    m.apply(at(ev("turn_complete", { promptId: "p1", stopReason: "end_turn" }), 1001));
    const s = m.snapshot();
    expect(s.items.filter((i) => i.kind === "turn").length).toBe(1);
    expect(s.items[0]).toMatchObject({ kind: "tool", startedAt: 100, endedAt: 900 });
  });
});

describe("TranscriptModel", () => {
  test("a turn: the prompt echo, thoughts, streamed agent text merged into one message, a plan; running until turn_complete", () => {
    const m = new TranscriptModel();
    m.apply(update({ sessionUpdate: "user_message_chunk", content: text("do it"), _meta: { source: "bridge-echo" } }));
    m.apply(update({ sessionUpdate: "agent_thought_chunk", content: text("hmm") }));
    m.apply(update({ sessionUpdate: "agent_message_chunk", content: text("Hel") }));
    m.apply(update({ sessionUpdate: "agent_message_chunk", content: text("lo") }));
    m.apply(update({ sessionUpdate: "plan", entries: [{ content: "step", status: "pending", priority: "high" }] }));
    m.apply(update({ sessionUpdate: "plan", entries: [{ content: "step", status: "completed", priority: "high" }] }));
    expect(m.snapshot().running).toBe(true);
    m.apply(ev("turn_complete", { sessionId: "s", promptId: "p1", stopReason: "end_turn" }));
    const s = m.snapshot();
    expect(s.running).toBe(false);
    expect(s.items.map((i) => i.kind)).toEqual(["user", "thought", "agent", "plan", "turn"]);
    expect(s.items[2]).toMatchObject({ kind: "agent", text: "Hello" });
    expect(s.items[3]).toMatchObject({ kind: "plan", entries: [{ content: "step", status: "completed" }] });
  });

  test("a recording gap from a load's journal and a degraded-recording event show as notices, in place", () => {
    const m = new TranscriptModel();
    m.apply(update({ sessionUpdate: "agent_message_chunk", content: text("before") }), true);
    m.apply(ev("recording_gap", { sessionId: "s", reason: "locked", notRecorded: 43, firstEventId: 5, lastEventId: 47 }), true);
    m.apply(ev("session_recording_degraded", { sessionId: "s", reason: "unavailable", error: "database is locked", since: "x" }));
    const notices = m.snapshot().items.filter((i) => i.kind === "notice");
    expect(m.snapshot().items.map((i) => i.kind)).toEqual(["agent", "notice", "notice"]);
    expect(notices[0]).toMatchObject({ text: "43 events were not recorded here (ids 5 to 47)." });
    expect(notices[1]).toMatchObject({ text: expect.stringContaining("stopped recording") });
    // Recording that resumes after a lock says how much of the history is missing.
    m.apply(ev("session_recording_resumed", { sessionId: "s", noticeEventId: 48, firstUnrecordedEventId: 49, unrecordedEvents: 12 }));
    expect(m.snapshot().items.at(-1)).toMatchObject({ kind: "notice", text: expect.stringContaining("12 events before this are missing") });
  });

  test("a permission request the daemon refused shows as a notice saying why", () => {
    const m = new TranscriptModel();
    m.apply(ev("permission_request_refused", { sessionId: "s", reason: "too_many_options", options: 200000, limit: 16 }));
    m.apply(ev("permission_request_refused", { sessionId: "s", reason: "option_id_too_long", bytes: 300, limit: 128 }));
    expect(m.snapshot().items.map((i) => (i.kind === "notice" ? i.text : i.kind))).toEqual([
      "The agent asked for permission with 200000 options (at most 16 are accepted); the daemon refused it without asking you.",
      "The agent asked for permission with an option id of 300 bytes (at most 128 are accepted); the daemon refused it without asking you.",
    ]);
  });

  test("a snapshot renews only the items that changed", () => {
    const m = new TranscriptModel();
    m.apply(update({ sessionUpdate: "user_message_chunk", content: text("q"), _meta: { source: "bridge-echo" } }));
    m.apply(update({ sessionUpdate: "agent_message_chunk", content: text("a") }));
    const before = m.snapshot();
    m.apply(update({ sessionUpdate: "agent_message_chunk", content: text("b") }));
    const after = m.snapshot();
    expect(after.items[0]).toBe(before.items[0]!);
    expect(after.items[1]).not.toBe(before.items[1]!);
  });

  test("tool calls: created, updated in place (status, content: text output and diffs), failed", () => {
    const m = new TranscriptModel();
    m.apply(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit a.txt", kind: "edit", status: "pending" }));
    m.apply(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress" }));
    m.apply(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", content: [{ type: "diff", path: "/w/a.txt", oldText: "x\n", newText: "y\n" }, { type: "content", content: text("ok") }] }));
    m.apply(update({ sessionUpdate: "tool_call", toolCallId: "t2", title: "Run ls", kind: "execute", status: "in_progress" }));
    m.apply(update({ sessionUpdate: "tool_call_update", toolCallId: "t2", status: "failed" }));
    const tools = m.snapshot().items;
    expect(tools).toHaveLength(2);
    expect(tools[0]).toMatchObject({ kind: "tool", title: "Edit a.txt", status: "completed", content: [{ type: "diff", path: "/w/a.txt", oldText: "x\n", newText: "y\n" }, { type: "text", text: "ok" }] });
    expect(tools[1]).toMatchObject({ kind: "tool", title: "Run ls", status: "failed" });
  });

  test("permission requests are pending until resolved; their options keep the agent's names", () => {
    const m = new TranscriptModel();
    m.apply(ev("permission_request", { requestId: "r1", sessionId: "s", toolCall: { toolCallId: "t1", title: "Write b.txt" }, options: [{ optionId: "o1", name: "Allow once", kind: "allow_once" }, { optionId: "o2", name: "Reject", kind: "reject_once" }] }));
    expect(m.snapshot().permissions).toEqual([
      {
        requestId: "r1",
        title: "Write b.txt",
        options: [{ optionId: "o1", name: "Allow once", kind: "allow_once" }, { optionId: "o2", name: "Reject", kind: "reject_once" }],
        toolKind: undefined,
        toolName: undefined,
        rawInput: undefined,
        locations: [],
        content: [],
      },
    ]);
    expect(m.snapshot().items).toMatchObject([{ kind: "tool", title: "Write b.txt" }]);
    m.apply(ev("permission_resolved", { requestId: "r1", sessionId: "s", outcome: { outcome: "selected", optionId: "o1" } }));
    expect(m.snapshot().permissions).toEqual([]);
  });

  test("a permission request carries what the call would do: its own fields over the call's earlier updates", () => {
    const m = new TranscriptModel();
    m.apply(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Shell", kind: "execute", status: "pending", rawInput: { command: "rm -rf build" }, _meta: { toolName: "run_shell_command" } }));
    m.apply(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", locations: [{ path: "/w/build", line: 3 }, { nope: 1 }], content: [{ type: "content", content: text("$ rm -rf build") }] }));
    // The request itself names only the call and a new title (ACP lets it send only what changed).
    m.apply(ev("permission_request", { requestId: "r1", sessionId: "s", toolCall: { toolCallId: "t1", title: "rm -rf build" }, options: [] }));
    expect(m.snapshot().permissions[0]).toEqual({
      requestId: "r1",
      title: "rm -rf build",
      options: [],
      toolKind: "execute",
      toolName: "run_shell_command",
      rawInput: { command: "rm -rf build" },
      locations: [{ path: "/w/build", line: 3 }],
      content: [{ type: "text", text: "$ rm -rf build" }],
    });
    // A request without a call id shows its own fields and adds no tool card.
    m.apply(ev("permission_request", { requestId: "r2", sessionId: "s", toolCall: { title: "Fetch", kind: "fetch", rawInput: { url: "http://x" } }, options: [] }));
    expect(m.snapshot().permissions[1]).toMatchObject({ requestId: "r2", title: "Fetch", toolKind: "fetch", rawInput: { url: "http://x" }, locations: [], content: [] });
    expect(m.snapshot().items.filter((i) => i.kind === "tool")).toHaveLength(1);
  });

  test("queued prompts, errors, model and mode changes, rename, and the session's end", () => {
    const m = new TranscriptModel({ modelId: "a", approvalMode: "default" });
    m.apply(ev("pending_prompt_added", { sessionId: "s", promptId: "p2", text: "later", queuedAt: 1 }));
    expect(m.snapshot().queued).toEqual([{ promptId: "p2", text: "later" }]);
    m.apply(ev("pending_prompt_started", { sessionId: "s", promptId: "p2", text: "later" }));
    expect(m.snapshot().queued).toEqual([]);
    expect(m.snapshot().running).toBe(true);
    m.apply(ev("turn_error", { sessionId: "s", promptId: "p2", message: "boom" }));
    expect(m.snapshot().running).toBe(false);
    m.apply(ev("model_switched", { sessionId: "s", modelId: "b" }));
    m.apply(ev("approval_mode_changed", { sessionId: "s", previous: "default", next: "plan", persisted: false }));
    m.apply(ev("session_metadata_updated", { sessionId: "s", displayName: "Named" }));
    m.apply(ev("session_closed", { sessionId: "s", reason: "client_close" }));
    const s = m.snapshot();
    expect(s.items).toMatchObject([{ kind: "error", message: "boom" }]);
    expect([s.modelId, s.approvalMode, s.displayName, s.ended]).toEqual(["b", "plan", "Named", "client_close"]);
  });

  test("a session_closed or session_died replayed from a load's journal ends the turn then, but leaves the (reloaded, live) session usable", () => {
    for (const type of ["session_closed", "session_died"]) {
      const m = new TranscriptModel();
      m.apply(ev("pending_prompt_started", { sessionId: "s", promptId: "p1", text: "x" }), true);
      m.apply(ev("permission_request", { requestId: "r1", sessionId: "s", toolCall: { toolCallId: "t1", title: "W" }, options: [] }), true);
      m.apply(ev(type, { sessionId: "s", reason: "daemon_shutdown" }), true);
      const s = m.snapshot();
      expect({ ended: s.ended, running: s.running, permissions: s.permissions }).toEqual({ ended: undefined, running: false, permissions: [] });
      m.apply(ev(type, { sessionId: "s", reason: "client_close" }));
      expect(m.snapshot().ended).toBe("client_close");
    }
  });

  test(`keeps at most ${MAX_ITEMS} items and counts the dropped ones; tool updates still find their item`, () => {
    const m = new TranscriptModel();
    m.apply(update({ sessionUpdate: "tool_call", toolCallId: "late", title: "T", status: "pending" }));
    for (let i = 0; i < MAX_ITEMS + 50; i++) {
      m.apply(update({ sessionUpdate: "tool_call", toolCallId: `t${i}`, title: `T${i}`, status: "pending" }));
    }
    m.apply(update({ sessionUpdate: "tool_call_update", toolCallId: `t${MAX_ITEMS + 49}`, status: "completed" }));
    const s = m.snapshot();
    expect(s.items).toHaveLength(MAX_ITEMS);
    expect(s.dropped).toBe(51);
    expect(s.items.at(-1)).toMatchObject({ toolCallId: `t${MAX_ITEMS + 49}`, status: "completed" });
  });
});

describe("diffLines", () => {
  test("cuts common lines to three lines of context and marks changes", () => {
    const old = "1\n2\n3\n4\n5\nold\n6\n7\n8\n9\n";
    const now = "1\n2\n3\n4\n5\nnew\nmore\n6\n7\n8\n9\n";
    expect(diffLines(old, now).lines.map((l) => l.sign + l.text)).toEqual([" 3", " 4", " 5", "-old", "+new", "+more", " 6", " 7", " 8"]);
  });

  test("a created file is all additions", () => {
    expect(diffLines(null, "a\nb\n").lines.map((l) => l.sign + l.text)).toEqual(["+a", "+b"]);
  });

  test("a huge edit (200,000 lines) diffs without a stack overflow and returns at most MAX_DIFF_LINES lines, counting the rest", () => {
    const huge = Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join("\n");
    const created = diffLines(null, huge);
    expect(created.lines.length).toBe(MAX_DIFF_LINES);
    expect(created.omitted).toBe(200_000 - MAX_DIFF_LINES);
    expect(created.lines[0]).toEqual({ sign: "+", text: "line 0" });
    const replaced = diffLines(huge, `${huge}x`);
    expect(replaced.lines.map((l) => l.sign + l.text)).toEqual([" line 199996", " line 199997", " line 199998", "-line 199999", "+line 199999x"]);
    const rewritten = diffLines(huge.replace(/line/g, "old"), huge);
    expect(rewritten.lines.length).toBe(MAX_DIFF_LINES);
    expect(rewritten.omitted).toBe(400_000 - MAX_DIFF_LINES);
  });

  test("the text shown is bounded by MAX_DIFF_CHARS, even in one long line", () => {
    const diff = diffLines(null, `${"y".repeat(5_000_000)}\nnext`);
    expect(diff.lines).toHaveLength(1);
    expect(diff.lines[0]!.text.length).toBe(MAX_DIFF_CHARS + 1);
    expect(diff.omitted).toBe(1);
  });
});
