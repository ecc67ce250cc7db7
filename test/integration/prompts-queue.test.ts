/**
 * `POST /session/:id/prompt`, `/cancel` and `GET /pending-prompts` against a real fake-agent child:
 * admission, the per-session FIFO and its events, the queue cap, body validation, and cancelling
 * only the running prompt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { completeTurn, isTerminal, openSession, terminalsOf, untilAgentHasPrompt, untilTurnEnds } from "../helpers/prompt-session.ts";

const BAD_PROMPT = "`prompt` is required and must be a non-empty array of content blocks";

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

describe("the prompt queue", () => {
  test("a prompt sent while another runs waits: pending_prompt_added, then _started when the first ends, then _completed", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    // The first prompt blocks on a permission request, so the second surely has to wait.
    const first = (await s.prompt("@permission\n@say first done", { clientId: s.clientId })).body.promptId;
    const request = await sse.waitFor("permission_request");
    const secondReply = await s.prompt("@say second");
    expect(secondReply.status).toBe(202);
    const second = secondReply.body.promptId;
    const added = await sse.waitFor("pending_prompt_added");
    expect(added.data).toEqual({ sessionId: s.id, promptId: second, text: "@say second", queuedAt: expect.any(Number) });
    expect(added.envelope.promptId).toBe(second);

    const pending = await s.pending();
    expect(pending.status).toBe(200);
    expect(pending.body.pendingPrompts).toEqual([
      {
        promptId: first,
        text: "@permission\n@say first done",
        content: [{ type: "text", text: "@permission\n@say first done" }],
        queuedAt: expect.any(Number),
        state: "running",
        originatorClientId: s.clientId,
      },
      { promptId: second, text: "@say second", content: [{ type: "text", text: "@say second" }], queuedAt: added.data.queuedAt, state: "queued" },
    ]);

    expect((await s.vote(request.data.requestId, { outcome: "selected", optionId: "proceed_once" })).status).toBe(200);
    const rest = await untilTurnEnds(sse, second);
    const completed = await sse.next();
    const order = rest.filter((f) => f.event !== "session_update" || f.data.update.sessionUpdate === "user_message_chunk").map((f) => `${f.event}:${f.data.promptId === first || f.envelope.promptId === first ? "first" : "second"}`);
    expect(order).toEqual(["permission_resolved:first", "turn_complete:first", "pending_prompt_started:second", "session_update:second", "turn_complete:second"]);
    expect(rest.find((f) => f.event === "pending_prompt_started")!.data).toEqual({ sessionId: s.id, promptId: second, text: "@say second" });
    expect(completed!.event).toBe("pending_prompt_completed");
    expect(completed!.data).toEqual({ sessionId: s.id, promptId: second, state: "completed" });
    // The first prompt never waited, so it has no pending_prompt_* events.
    expect(sse.frames.filter((f) => f.event.startsWith("pending_prompt_") && f.data.promptId === first)).toEqual([]);
    expect((await s.pending()).body).toEqual({ pendingPrompts: [] });
  });

  test("prompts run one at a time in admission order, each ending exactly once", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const admitted: string[] = [];
    for (const text of ["@stream 2 5", "@say b", "@say c"]) admitted.push((await s.prompt(text)).body.promptId);
    await untilTurnEnds(sse, admitted[2]!);
    const ends = sse.frames.filter(isTerminal);
    expect(ends.map((f) => f.data.promptId)).toEqual(admitted);
    expect(ends.every((f) => f.event === "turn_complete" && f.data.stopReason === "end_turn")).toBe(true);
    const echoes = sse.frames.filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "user_message_chunk");
    expect(echoes.map((f) => f.envelope.promptId)).toEqual(admitted);
  });

  test("the agent's stopReason is passed through", async () => {
    await using s = await openSession(d);
    const { frames } = await completeTurn(s, "@say cut\n@stop max_tokens");
    expect(frames.at(-1)!.data.stopReason).toBe("max_tokens");
  });

  test("a session over --max-pending-prompts-per-session answers 503 prompt_queue_full with Retry-After", async () => {
    await using capped = await fakeAgentDaemon(["--max-pending-prompts-per-session", "2"]);
    await using s = await openSession(capped);
    await using sse = await s.events();
    expect((await s.prompt("@hang")).status).toBe(202);
    expect((await s.prompt("@say queued")).status).toBe(202);
    const full = await s.prompt("@say one too many");
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("5");
    expect(full.body).toEqual({ error: expect.any(String), code: "prompt_queue_full", sessionId: s.id, limit: 2, pendingCount: 2 });
    expect((await s.pending()).body.pendingPrompts).toHaveLength(2);

    // Once the running prompt is cancelled a slot frees up.
    expect((await s.cancel()).status).toBe(204);
    await sse.waitFor("pending_prompt_started");
    const admitted = await s.prompt("@say now it fits");
    expect(admitted.status).toBe(202);
    await untilTurnEnds(sse, admitted.body.promptId);
  });
});

describe("prompt validation", () => {
  test("bodies without a non-empty array of content blocks are 400 {error} and admit nothing", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const bad: unknown[] = [
      {},
      { prompt: [] },
      { prompt: "hi" },
      { prompt: {} },
      { prompt: [null] },
      { prompt: [[]] },
      { prompt: [{}] },
      { prompt: [{ type: 5 }] },
      { prompt: [{ type: "text" }] },
      { prompt: [{ type: "text", text: 5 }] },
      [],
    ];
    for (const body of bad) {
      const res = await s.prompt("", { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toEqual({ error: BAD_PROMPT });
    }
    const malformed = await d.fetch(`/session/${s.id}/prompt`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{ not json" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: "Invalid JSON in request body" });
    for (const deadlineMs of [0, -5, 1.5, "100"]) {
      const res = await s.prompt("", { body: { prompt: [{ type: "text", text: "x" }], deadlineMs } });
      expect(res.status, String(deadlineMs)).toBe(400);
      expect(res.body.code).toBe("invalid_deadline");
    }

    expect((await s.pending()).body).toEqual({ pendingPrompts: [] });
    // Nothing was published for the refused bodies: the next frame is the echo of a valid prompt.
    const ok = await s.prompt("@say valid");
    expect(ok.status).toBe(202);
    const first = await sse.next();
    expect(first!.data.update).toMatchObject({ sessionUpdate: "user_message_chunk", content: { text: "@say valid" } });
    expect(first!.id).toBe(ok.body.lastEventId + 1);
    await untilTurnEnds(sse, ok.body.promptId);
  });

  test("a prompt to an unknown session is a 404", async () => {
    const res = await d.fetch("/session/nope/prompt", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ prompt: [{ type: "text", text: "x" }] }) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "session_not_found", sessionId: "nope" });
  });

  test("a per-prompt deadlineMs is ignored when the daemon has no prompt deadline", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const res = await s.prompt("", { body: { prompt: [{ type: "text", text: "@sleep 150\n@say late" }], deadlineMs: 20 } });
    expect(res.status).toBe(202);
    const end = (await untilTurnEnds(sse, res.body.promptId)).at(-1)!;
    expect(end.event).toBe("turn_complete");
    expect(end.data.stopReason).toBe("end_turn");
  });
});

describe("cancel", () => {
  test("answers 204 when nothing runs, and publishes nothing", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const res = await s.cancel();
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const ok = await s.prompt("@say after");
    expect((await sse.next())!.id).toBe(ok.body.lastEventId + 1);
    expect(await d.sentToAgent("session/cancel", s.id)).toHaveLength(0);
    await untilTurnEnds(sse, ok.body.promptId);
  });

  test("cancels only the running prompt: prompt_cancelled, turn_complete cancelled, then the queued prompt runs", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const running = (await s.prompt("@hang")).body.promptId;
    const queued = (await s.prompt("@say still runs")).body.promptId;
    await sse.waitFor("pending_prompt_added");
    await untilAgentHasPrompt(s);

    // The prompt was anonymous; the canceller is named on prompt_cancelled.
    expect((await s.cancel({ clientId: s.clientId })).status).toBe(204);
    const cancelled = await sse.waitFor("prompt_cancelled");
    expect(cancelled.data).toEqual({ sessionId: s.id });
    expect(cancelled.envelope).toMatchObject({ promptId: running, originatorClientId: s.clientId });
    const end = await sse.next();
    expect(end!.event).toBe("turn_complete");
    expect(end!.data).toEqual({ sessionId: s.id, promptId: running, stopReason: "cancelled", promptCancelled: { cancelledAt: expect.any(String), elapsedMs: expect.any(Number) } });
    expect(Date.parse(end!.data.promptCancelled.cancelledAt)).not.toBeNaN();

    const next = await untilTurnEnds(sse, queued);
    expect(next[0]!.event).toBe("pending_prompt_started");
    expect(next.at(-1)!.data).toMatchObject({ promptId: queued, stopReason: "end_turn" });
    expect(terminalsOf(sse.frames, running)).toHaveLength(1);
    expect(await d.sentToAgent("session/cancel", s.id)).toHaveLength(1);
  });
});
